package web

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/ids"
	transactions "github.com/paylane/paylane/transactions-svc/client"
)

// txPerPage is the page size of the lists.
const txPerPage = 25

// txKind is what differs between the receivables and payables pages.
type txKind struct {
	Direction string // receivable, payable
	Path      string // /dashboard/receivables
	Title     string // Receivables
	Noun      string // receivable
	ViewAny   string
	View      string
	Delete    string
	Statuses  []string
}

func txKinds() []txKind {
	return []txKind{
		{Direction: transactions.DirectionReceivable, Path: Base + "/receivables", Title: "Receivables", Noun: "receivable",
			ViewAny: abilityViewReceivables, View: abilityViewReceivable, Delete: abilityDeleteReceivable, Statuses: receivableStatuses},
		{Direction: transactions.DirectionPayable, Path: Base + "/payables", Title: "Payables", Noun: "payable",
			ViewAny: abilityViewPayables, View: abilityViewPayable, Delete: abilityDeletePayable, Statuses: payableStatuses},
	}
}

// transactionRoutes are the receivables and payables pages (list with
// filters, detail with the state history and messages, and the lifecycle
// actions), each behind the ability of the API route it calls.
func (a *App) transactionRoutes(in fiber.Router) {
	for _, k := range txKinds() {
		route := strings.TrimPrefix(k.Path, Base)
		in.Get(route, a.requireAbility(k.ViewAny), a.txListPage(k))
		in.Get(route+"/:id", a.requireAbility(k.View), a.txDetailPage(k))
		in.Post(route+"/:id/cancel", a.requireAbility(k.Delete), a.txAction(k, transactions.ActionCancel))
		in.Post(route+"/:id/resend-notification", a.requireAbility(abilityResend), a.txAction(k, transactions.ActionResendNotification))
		in.Post(route+"/:id/expire", a.requireAbility(abilityUpdateTxn), a.txAction(k, transactions.ActionExpire))
	}
}

// txFilter is the list's filter form, as the user typed it.
type txFilter struct {
	Status    string
	Contact   string
	Reference string
	Since     string
}

// values is the filter as URL parameters.
func (f txFilter) values() url.Values {
	return url.Values{"status": {f.Status}, "contact": {f.Contact}, "reference": {f.Reference}, "since": {f.Since}}
}

// txRow is a row of a list.
type txRow struct {
	ID        string
	Href      string
	Reference string
	Contact   string
	ContactID string
	Amount    string
	Status    string
	Created   *time.Time
	Due       string
}

type txListData struct {
	Kind     txKind
	Filter   txFilter
	Filtered bool
	Rows     []txRow
	Total    listTotal
	Pager    pager
	CanView  bool
}

// parseTxFilter reads the filters and page of a list; what is malformed is
// named in the errors and never sent to transactions-svc.
func parseTxFilter(c *fiber.Ctx, k txKind) (txFilter, transactions.ListOptions, int, map[string]string) {
	f := txFilter{Status: c.Query("status"), Contact: strings.TrimSpace(c.Query("contact")),
		Reference: strings.TrimSpace(c.Query("reference")), Since: strings.TrimSpace(c.Query("since"))}
	opts := transactions.ListOptions{PerPage: txPerPage}
	errs := map[string]string{}
	if f.Status != "" && !slices.Contains(k.Statuses, f.Status) {
		errs["status"] = "Choose a status from the list."
		f.Status = ""
	}
	opts.Status = f.Status
	if f.Contact != "" {
		if id := strings.ToUpper(f.Contact); ids.Valid(id) {
			opts.ContactID = id
		} else {
			errs["contact"] = "Enter a contact ID: 26 letters and digits, as on the contact's page."
		}
	}
	if f.Reference != "" {
		if !printable(f.Reference) || utf8.RuneCountInString(f.Reference) > 191 {
			errs["reference"] = "Enter a reference of at most 191 characters."
		} else {
			opts.ExternalID = f.Reference
		}
	}
	if f.Since != "" {
		if t, err := time.Parse(time.DateOnly, f.Since); err == nil {
			opts.CreatedSince = &t
		} else {
			errs["since"] = "Enter a date as YYYY-MM-DD."
		}
	}
	page, ok := pageNumber(c)
	if !ok {
		errs["page"] = "This page number does not exist."
	}
	opts.Page = page
	// A refused value is shown back for correction only when it is short,
	// readable text.
	for _, v := range []*string{&f.Contact, &f.Reference, &f.Since} {
		if !printable(*v) || utf8.RuneCountInString(*v) > 191 {
			*v = ""
		}
	}
	return f, opts, page, errs
}

// txListPage lists the tenant's receivables or payables, newest first,
// through the API's list route.
func (a *App) txListPage(k txKind) fiber.Handler {
	return func(c *fiber.Ctx) error {
		f, opts, pageNo, errs := parseTxFilter(c, k)
		d := txListData{Kind: k, Filter: f, Filtered: f != (txFilter{}),
			CanView: slices.Contains(currentUser(c).Abilities, k.View)}
		p := page{Title: k.Title, Nav: k.Noun + "s", Data: &d}
		if len(errs) > 0 {
			c.Status(http.StatusUnprocessableEntity)
			p.Errors = errs
			return a.render(c, "transactions", p)
		}
		token, err := a.userToken(c)
		if err != nil {
			return err
		}
		res, err := a.transactions.List(c.UserContext(), token, k.Direction, opts)
		if fields, ok := validation(err, map[string]string{"contact_id": "contact", "external_id": "reference",
			"created_since": "since"}); ok {
			c.Status(http.StatusUnprocessableEntity)
			p.Errors = fields
			return a.render(c, "transactions", p)
		}
		if err != nil {
			return peerError(err)
		}
		d.Total = listTotal{res.Total, res.TotalIsEstimate}
		names := a.contactNames(c, token, res.Items)
		for _, it := range res.Items {
			d.Rows = append(d.Rows, txRow{ID: it.ID, Href: k.Path + "/" + it.ID, Reference: orEmpty(it.ExternalID),
				Contact: names[it.ContactID], ContactID: it.ContactID, Amount: money(it.Amount, it.Currency),
				Status: it.Status, Created: &it.CreatedAt, Due: dueOf(it)})
		}
		d.Pager = newPager(k.Path, f.values(), pageNo, res.LastPage)
		return a.render(c, "transactions", p)
	}
}

// dueOf is the due date, else when the link expires.
func dueOf(it transactions.Item) string {
	if it.DueDate != nil {
		if t, err := time.Parse(time.DateOnly, *it.DueDate); err == nil {
			return "Due " + t.Format("2 Jan 2006")
		}
		return "Due " + *it.DueDate
	}
	if it.LinkExpiresAt != nil {
		return "Link expires " + it.LinkExpiresAt.UTC().Format("2 Jan 2006, 15:04 UTC")
	}
	return ""
}

// contactNames returns the names of the items' contacts (soft-deleted ones
// too), read in one call, when the user's role reads contacts
// (api:view-contact). A contact that cannot be read is left out: the page
// shows its id.
func (a *App) contactNames(c *fiber.Ctx, token string, items []transactions.Item) map[string]string {
	names := map[string]string{}
	if a.contacts == nil || !slices.Contains(currentUser(c).Abilities, abilityViewContact) {
		return names
	}
	var list []string
	for _, it := range items {
		if it.ContactID != "" && !slices.Contains(list, it.ContactID) {
			list = append(list, it.ContactID)
		}
	}
	if len(list) == 0 {
		return names
	}
	found, err := a.contacts.ByID(c.UserContext(), token, list)
	if err != nil {
		return names
	}
	for _, ct := range found {
		if n := strings.TrimSpace(orEmpty(ct.FirstName) + " " + orEmpty(ct.LastName)); n != "" {
			names[ct.ID] = n
		}
	}
	return names
}

// txDetail is the detail page's data.
type txDetail struct {
	Kind      txKind
	Item      *transactions.Item
	Amount    string
	Contact   string
	Due       string
	Activity  *transactions.Activity
	CanCancel bool
	CanResend bool
	CanExpire bool
}

// Stamp formats a time as the pages do ("2 Jan 2006, 15:04 UTC").
func (txDetail) Stamp(t time.Time) string { return t.UTC().Format("2 Jan 2006, 15:04 UTC") }

// txDetailPage shows a receivable or payable, its state history and its
// messages, with the actions the user's role allows.
func (a *App) txDetailPage(k txKind) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := pathID(c)
		if err != nil {
			return err
		}
		return a.renderTxDetail(c, k, id, page{Notice: txNotice(k, c.Query("done"))})
	}
}

// renderTxDetail reads the item and its activity and renders the detail
// page with p's status, notice and errors.
func (a *App) renderTxDetail(c *fiber.Ctx, k txKind, id string, p page) error {
	token, err := a.userToken(c)
	if err != nil {
		return err
	}
	var (
		it  *transactions.Item
		act *transactions.Activity
	)
	err = runAll([]func() error{
		func() (err error) { it, err = a.transactions.Item(c.UserContext(), token, k.Direction, id); return },
		func() (err error) {
			act, err = a.transactions.Activity(c.UserContext(), token, k.Direction, id)
			return
		},
	})
	if err != nil {
		return peerError(err)
	}
	u := currentUser(c)
	d := txDetail{Kind: k, Item: it, Amount: money(it.Amount, it.Currency), Due: dueOf(*it), Activity: act,
		Contact:   a.contactNames(c, token, []transactions.Item{*it})[it.ContactID],
		CanCancel: slices.Contains(u.Abilities, k.Delete), CanResend: slices.Contains(u.Abilities, abilityResend),
		CanExpire: slices.Contains(u.Abilities, abilityUpdateTxn)}
	p.Title, p.Nav, p.Data = strings.ToUpper(k.Noun[:1])+k.Noun[1:]+" "+titleRef(it), k.Noun+"s", &d
	return a.render(c, "transaction", p)
}

// titleRef names an item in a title: its reference, else its id.
func titleRef(it *transactions.Item) string {
	if it.ExternalID != nil {
		return *it.ExternalID
	}
	return it.ID
}

// txNotice is what a finished action says on the detail page.
func txNotice(k txKind, done string) string {
	switch done {
	case transactions.ActionCancel:
		return "The " + k.Noun + " is cancelled."
	case transactions.ActionResendNotification:
		return "The SMS is sent again to the contact."
	case transactions.ActionExpire:
		return "The " + k.Noun + "'s link has expired."
	}
	return ""
}

// txAction runs a lifecycle action through the API's own route (its gate,
// state machine, events and webhooks) with the form's Idempotency-Key,
// then shows the detail again. A refused transition re-renders the detail
// with the service's status and message.
func (a *App) txAction(k txKind, action string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := pathID(c)
		if err != nil {
			return err
		}
		token, err := a.userToken(c)
		if err != nil {
			return err
		}
		_, err = a.transactions.Act(c.UserContext(), token, k.Direction, id, action, formIdempotencyKey(c))
		var e *transactions.Error
		switch {
		case err == nil:
			return c.Redirect(k.Path+"/"+id+"?done="+action, http.StatusSeeOther)
		case errors.As(err, &e) && (e.Status == http.StatusConflict || e.Status == http.StatusUnprocessableEntity):
			c.Status(e.Status)
			msg := e.Message
			if msg == "" {
				msg = "Paylane refused this action for the " + k.Noun + " in its current status."
			}
			return a.renderTxDetail(c, k, id, page{Errors: map[string]string{"form": msg}})
		}
		return peerError(err)
	}
}
