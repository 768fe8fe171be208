package web

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	contacts "github.com/paylane/paylane/contacts-svc/client"
	"github.com/paylane/paylane/libs/phone"
)

// Contacts is what the dashboard asks contacts-svc (contacts-svc/client), with the
// signed-in user's internal token.
type Contacts interface {
	List(ctx context.Context, token string, q contacts.ListQuery) (*contacts.ContactPage, error)
	Show(ctx context.Context, token, id string, withTrashed bool) (*contacts.Contact, error)
	Search(ctx context.Context, token string, q contacts.SearchQuery) ([]contacts.Candidate, error)
	ByID(ctx context.Context, token string, ids []string) ([]contacts.Contact, error)
}

// Sizes of the contacts pages: a page of the list, the matches a name or
// email search shows, and the longest filter value sent on.
const (
	contactsPerPage = 25
	searchMatches   = 25
	maxFilter       = 200
)

// contactRoutes are the contacts pages (search, detail).
func (a *App) contactRoutes(in fiber.Router) {
	in.Get("/contacts", a.requireAbility(abilityViewContacts), a.contactsPage)
	in.Get("/contacts/:id", a.requireAbility(abilityViewContact), a.contactPage)
}

// contactFilters are the contacts page's query, as typed.
type contactFilters struct {
	Name, Email, Phone, ExternalID string
	Trashed                        bool
}

// search reports whether the filters ask for a name or email search
// rather than the list.
func (f contactFilters) search() bool { return f.Name != "" || f.Email != "" }

func (f contactFilters) values() url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"name": f.Name, "email": f.Email, "phone": f.Phone, "external_id": f.ExternalID} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if f.Trashed {
		v.Set("trashed", "1")
	}
	return v
}

func (f contactFilters) form() map[string]string {
	return map[string]string{"name": f.Name, "email": f.Email, "phone": f.Phone, "external_id": f.ExternalID}
}

// contactRow is a contact as the list shows it. Partial rows come from a
// search by a user who may not open contacts: the phone's last four digits
// only.
type contactRow struct {
	ID, Name, Phone, Email, ExternalID, OptIn string
	CreatedAt                                 time.Time
	Deleted, Partial                          bool
}

type contactsData struct {
	Filters  contactFilters
	Rows     []contactRow
	Search   bool
	Total    listTotal
	Pager    pager
	Filtered bool
}

// onForm returns a peer's field messages for a form showing the fields
// shown: a message about another field goes to the form's own.
func onForm(fields map[string]string, shown ...string) map[string]string {
	out := map[string]string{}
	for k, v := range fields {
		if slices.Contains(shown, k) || k == "form" {
			out[k] = v
		} else if out["form"] == "" {
			out["form"] = v
		}
	}
	return out
}

// contactsPage lists the tenant's contacts (GET /api/v1/contacts with the
// phone, external id and deleted filters, page by page) or, when a name or
// email is given, shows the best matches of contacts-svc's search.
func (a *App) contactsPage(c *fiber.Ctx) error {
	var f contactFilters
	bad := map[string]string{}
	for _, q := range []struct {
		name string
		to   *string
	}{{"name", &f.Name}, {"email", &f.Email}, {"phone", &f.Phone}, {"external_id", &f.ExternalID}} {
		v, ok := queryText(c, q.name)
		if !ok {
			bad[q.name] = "Enter at most 200 letters, digits or signs."
		}
		*q.to = v
	}
	f.Trashed = c.Query("trashed") == "1"
	pageNo, ok := pageNumber(c)
	if !ok {
		return &pageError{status: http.StatusNotFound}
	}
	d := contactsData{Filters: f, Search: f.search(), Filtered: len(f.values()) > 0}
	p := page{Title: "Contacts", Nav: "contacts", Form: f.form()}
	if len(bad) > 0 {
		c.Status(http.StatusUnprocessableEntity)
		p.Errors, p.Data = bad, d
		return a.render(c, "contacts", p)
	}
	token, err := a.userToken(c)
	if err != nil {
		return err
	}
	if d.Search {
		d.Rows, err = a.searchContacts(c, token, f)
	} else {
		var list *contacts.ContactPage
		list, err = a.contacts.List(c.UserContext(), token, contacts.ListQuery{Phone: f.Phone, ExternalID: f.ExternalID,
			WithTrashed: f.Trashed, Page: pageNo, PerPage: contactsPerPage})
		if err == nil && pageNo > 1 && len(list.Data) == 0 {
			// Past the last page: no such page.
			return &pageError{status: http.StatusNotFound}
		}
		if err == nil {
			d.Total = listTotal{list.Meta.Total, list.Meta.TotalIsEstimate}
			d.Pager = newPager(Base+"/contacts", f.values(), pageNo, list.Meta.LastPage)
			for _, ct := range list.Data {
				d.Rows = append(d.Rows, rowOf(ct))
			}
		}
	}
	if fields, invalid := validation(err, nil); invalid {
		c.Status(http.StatusUnprocessableEntity)
		p.Errors, p.Data = onForm(fields, "name", "email", "phone", "external_id"), contactsData{Filters: f, Search: d.Search, Filtered: true}
		return a.render(c, "contacts", p)
	}
	if err != nil {
		return peerError(err)
	}
	p.Data = d
	return a.render(c, "contacts", p)
}

// searchContacts asks contacts-svc for the best matches of f and, for a
// user who may open contacts, reads each (the single read, as
// GET /api/v1/contacts/{id} answers it) for the list's columns.
func (a *App) searchContacts(c *fiber.Ctx, token string, f contactFilters) ([]contactRow, error) {
	found, err := a.contacts.Search(c.UserContext(), token, contacts.SearchQuery{Name: f.Name, Phone: f.Phone, Email: f.Email,
		Limit: searchMatches})
	if err != nil {
		return nil, err
	}
	if f.ExternalID != "" {
		found = slices.DeleteFunc(found, func(k contacts.Candidate) bool { return k.ExternalID == nil || *k.ExternalID != f.ExternalID })
	}
	rows := make([]contactRow, len(found))
	if !slices.Contains(currentUser(c).Abilities, abilityViewContact) {
		for i, k := range found {
			rows[i] = contactRow{ID: k.ContactID, Name: fullName(k.FirstName, k.LastName), Phone: "ending " + k.PhoneLast4,
				ExternalID: orEmpty(k.ExternalID), Partial: true}
		}
		return rows, nil
	}
	gone := make([]bool, len(found))
	jobs := make([]func() error, len(found))
	for i, k := range found {
		jobs[i] = func() error {
			ct, err := a.contacts.Show(c.UserContext(), token, k.ContactID, false)
			if errors.Is(err, contacts.ErrNotFound) {
				// Deleted since the search: left out.
				gone[i] = true
				return nil
			}
			if err != nil {
				return err
			}
			rows[i] = rowOf(*ct)
			return nil
		}
	}
	if err := runAll(jobs); err != nil {
		return nil, err
	}
	out := rows[:0]
	for i, r := range rows {
		if !gone[i] {
			out = append(out, r)
		}
	}
	return out, nil
}

func rowOf(ct contacts.Contact) contactRow {
	return contactRow{ID: ct.ID, Name: fullName(ct.FirstName, ct.LastName), Phone: phone.Readable(ct.Phone),
		Email: orEmpty(ct.Email), ExternalID: orEmpty(ct.ExternalID), OptIn: ct.OptInStatus, CreatedAt: ct.CreatedAt,
		Deleted: ct.DeletedAt != nil}
}

func fullName(first, last *string) string {
	return strings.TrimSpace(orEmpty(first) + " " + orEmpty(last))
}

// customField is one custom field of a contact, its value as text.
type customField struct {
	Key, Value string
}

type contactData struct {
	Contact      *contacts.Contact
	Name, Phone  string
	CustomFields []customField
	Consents     []contacts.Consent
}

// contactPage shows one contact (GET /api/v1/contacts/{id} with
// with_trashed=1, so a deleted contact opens too): its fields, custom
// fields, phone, opt-in standing, and links to its receivables and payables.
func (a *App) contactPage(c *fiber.Ctx) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	token, err := a.userToken(c)
	if err != nil {
		return err
	}
	ct, err := a.contacts.Show(c.UserContext(), token, id, true)
	if err != nil {
		return peerError(err)
	}
	d := contactData{Contact: ct, Name: fullName(ct.FirstName, ct.LastName), Phone: phone.Readable(ct.Phone), Consents: ct.Consents}
	if d.Name == "" {
		d.Name = "Contact without a name"
	}
	for k, raw := range ct.CustomFields {
		d.CustomFields = append(d.CustomFields, customField{Key: k, Value: fieldText(raw)})
	}
	slices.SortFunc(d.CustomFields, func(x, y customField) int { return strings.Compare(x.Key, y.Key) })
	return a.render(c, "contact", page{Title: d.Name, Nav: "contacts", Data: d})
}

// fieldText shows a custom field's JSON value: a string as it is, null as
// a dash, anything else as its JSON.
func fieldText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	if v := strings.TrimSpace(string(raw)); v != "" && v != "null" {
		return v
	}
	return "—"
}
