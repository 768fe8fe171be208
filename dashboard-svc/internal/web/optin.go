package web

import (
	"context"
	"encoding/base64"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	qrcode "github.com/skip2/go-qrcode"

	contacts "github.com/paylane/paylane/contacts-svc/client"
	"github.com/paylane/paylane/libs/ids"
	optin "github.com/paylane/paylane/optin-svc/client"
)

// OptIn is what the dashboard asks optin-svc (optin-svc/client), with the
// signed-in user's internal token.
type OptIn interface {
	Codes(ctx context.Context, token string, q optin.CodeQuery) (*optin.CodePage, error)
	Code(ctx context.Context, token, id string) (*optin.Code, error)
	CreateCode(ctx context.Context, token, idempotencyKey string, in optin.CodeInput) (*optin.Code, error)
	ConsentCounts(ctx context.Context, token string) (map[string]optin.ConsentCounts, error)
	Consents(ctx context.Context, token string, q optin.ConsentQuery) (*optin.ConsentPage, error)
	Suppressions(ctx context.Context, token string, o optin.ListOptions) (*optin.SuppressionPage, error)
	AddSuppression(ctx context.Context, token, idempotencyKey string, in optin.SuppressionInput) (*optin.Suppression, error)
	RemoveSuppression(ctx context.Context, token, idempotencyKey, id string) error
}

// ContactPhones is what the suppression form asks contacts-svc
// (contacts-svc/client) to turn a typed number into the contact phone id
// the suppression list takes: the live contact with the number, then its
// phone record. Options.Contacts provides it.
type ContactPhones interface {
	Search(ctx context.Context, token string, q contacts.SearchQuery) ([]contacts.Candidate, error)
	Contact(ctx context.Context, token, id string) (*contacts.Contact, error)
}

// Page sizes of the lists.
const (
	codesPerPage        = 15
	consentsPerPage     = 25
	suppressionsPerPage = 25
	// codeNames bounds the codes read to name the codes of the consents.
	codeNames = 100
	// qrSize is the side of a code's QR image in pixels.
	qrSize = 320
)

// optinRoutes are the opt-in codes, consents and suppression list pages.
func (a *App) optinRoutes(in fiber.Router) {
	view := a.requireAbility(abilityViewOptInCodes)
	in.Get("/opt-in-codes", view, a.optInOff(a.codesPage))
	in.Post("/opt-in-codes", a.requireAbility(abilityCreateOptInCodes), a.optInOff(a.createCode))
	in.Get("/opt-in-codes/:id", view, a.optInOff(a.codePage))
	in.Get("/opt-in-codes/:id/qr.png", view, a.optInOff(a.codeQR))
	in.Get("/opt-ins", view, a.optInOff(a.consentsPage))
	in.Get("/suppression", a.requireAbility(abilityViewSuppression), a.suppressionPage)
	in.Post("/suppression", a.requireAbility(abilityCreateSuppression), a.addSuppression)
	in.Post("/suppression/:id/remove", a.requireAbility(abilityDeleteSuppression), a.removeSuppression)
}

// optinNotice is the message of a notice code after a write's redirect.
func optinNotice(code string) string {
	switch code {
	case "code-created":
		return "The opt-in code is created. Print its QR code or share its link."
	case "suppressed":
		return "The number is on the suppression list: it receives no SMS from now on."
	case "unsuppressed":
		return "The number is off the suppression list: it may receive SMS again."
	}
	return ""
}

// errOptInOff: the tenant's SMS opt-in is switched off, so optin-svc
// answers its code and consent routes as if they did not exist.
var errOptInOff = errors.New("opt-in is off for the tenant")

// optInOff renders the page that says opt-in is off when h meets
// errOptInOff.
func (a *App) optInOff(h fiber.Handler) fiber.Handler {
	return func(c *fiber.Ctx) error {
		err := h(c)
		if !errors.Is(err, errOptInOff) {
			return err
		}
		c.Status(http.StatusNotFound)
		return a.render(c, "error", page{Title: "Opt-in is off", Nav: "optin", Status: http.StatusNotFound,
			Message: "SMS opt-in is not switched on for your organisation, so it has no opt-in codes or consents. Ask Paylane support to switch it on."})
	}
}

// optinError turns a peer's 403 and 404 into their pages (a 404
// route_not_found of the opt-in routes into errOptInOff); other errors
// pass through.
func optinError(err error) error {
	var e *optin.Error
	if errors.As(err, &e) && e.Status == http.StatusNotFound && e.Code == "route_not_found" {
		return errOptInOff
	}
	return peerError(err)
}

// optinTime is a time as the date funcs take it.
func optinTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// codeRow is a code with the counts of its consents.
type codeRow struct {
	optin.Code
	Counts  optin.ConsentCounts
	Created *time.Time
}

type codesData struct {
	Codes  []codeRow
	Active string
	Pager  pager
}

func (a *App) codesData(c *fiber.Ctx) (codesData, error) {
	active := c.Query("active")
	if active != "" && active != "true" && active != "false" {
		return codesData{}, &pageError{status: http.StatusUnprocessableEntity}
	}
	n, ok := pageNumber(c)
	if !ok {
		return codesData{}, &pageError{status: http.StatusUnprocessableEntity}
	}
	token, err := a.userToken(c)
	if err != nil {
		return codesData{}, err
	}
	list, err := a.optin.Codes(c.UserContext(), token, optin.CodeQuery{Active: active,
		ListOptions: optin.ListOptions{Page: n, PerPage: codesPerPage}})
	if err != nil {
		return codesData{}, optinError(err)
	}
	counts, err := a.optin.ConsentCounts(c.UserContext(), token)
	if err != nil {
		return codesData{}, optinError(err)
	}
	d := codesData{Active: active, Pager: newPager(Base+"/opt-in-codes", url.Values{"active": {active}}, list.Meta.CurrentPage, list.Meta.LastPage)}
	for _, code := range list.Data {
		d.Codes = append(d.Codes, codeRow{Code: code, Counts: counts[code.ID], Created: optinTime(code.CreatedAt)})
	}
	return d, nil
}

func (a *App) codesPage(c *fiber.Ctx) error {
	d, err := a.codesData(c)
	if err != nil {
		return err
	}
	return a.render(c, "optin-codes", page{Title: "Opt-in codes", Nav: "optin", Data: d, Notice: optinNotice(c.Query("notice"))})
}

// createCode creates a code through optin-svc (its validation, its gate
// api:create-opt-in-code) and opens it.
func (a *App) createCode(c *fiber.Ctx) error {
	name := strings.TrimSpace(c.FormValue("name"))
	form := map[string]string{"name": name, "double_opt_in": c.FormValue("double_opt_in"), "is_default": c.FormValue("is_default")}
	refuse := func(fields map[string]string) error {
		d, err := a.codesData(c)
		if err != nil {
			return err
		}
		c.Status(http.StatusUnprocessableEntity)
		return a.render(c, "optin-codes", page{Title: "Opt-in codes", Nav: "optin", Data: d, Errors: fields, Form: form})
	}
	in := optin.CodeInput{Name: name}
	if form["double_opt_in"] == "yes" {
		yes := true
		in.DoubleOptIn = &yes
	}
	if form["is_default"] == "yes" {
		yes := true
		in.IsDefault = &yes
	}
	token, err := a.userToken(c)
	if err != nil {
		return err
	}
	code, err := a.optin.CreateCode(c.UserContext(), token, formIdempotencyKey(c), in)
	if fields, ok := validation(err, nil); ok {
		return refuse(fields)
	}
	if err != nil {
		return optinError(err)
	}
	return c.Redirect(Base+"/opt-in-codes/"+url.PathEscape(code.ID)+"?notice=code-created", http.StatusSeeOther)
}

type codeData struct {
	Code    optin.Code
	Counts  optin.ConsentCounts
	Created *time.Time
	// QR is the PNG of the code's landing URL as a data: URL.
	QR template.URL
}

// codeOf reads the code of the path's id: 404 for an id that cannot be one.
func (a *App) codeOf(c *fiber.Ctx) (*optin.Code, string, error) {
	id, err := pathID(c)
	if err != nil {
		return nil, "", err
	}
	token, err := a.userToken(c)
	if err != nil {
		return nil, "", err
	}
	code, err := a.optin.Code(c.UserContext(), token, id)
	if err != nil {
		return nil, "", optinError(err)
	}
	return code, token, nil
}

func (a *App) codePage(c *fiber.Ctx) error {
	code, token, err := a.codeOf(c)
	if err != nil {
		return err
	}
	counts, err := a.optin.ConsentCounts(c.UserContext(), token)
	if err != nil {
		return optinError(err)
	}
	png, err := qrcode.Encode(code.URL, qrcode.Medium, qrSize)
	if err != nil {
		return err
	}
	d := codeData{Code: *code, Counts: counts[code.ID], Created: optinTime(code.CreatedAt),
		// The image is made here from the code's own URL, never from input.
		QR: template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(png))}
	return a.render(c, "optin-code", page{Title: "Opt-in code " + code.Name, Nav: "optin", Data: d, Notice: optinNotice(c.Query("notice"))})
}

// codeQR serves a code's QR image to download.
func (a *App) codeQR(c *fiber.Ctx) error {
	code, _, err := a.codeOf(c)
	if err != nil {
		return err
	}
	png, err := qrcode.Encode(code.URL, qrcode.Medium, qrSize)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, "image/png")
	c.Set(fiber.HeaderCacheControl, "private, max-age=300")
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="opt-in-`+code.ID+`.png"`)
	return c.Send(png)
}

// consentRow is a consent with the name of its code.
type consentRow struct {
	optin.Consent
	CodeName string
}

type consentsData struct {
	Consents []consentRow
	Codes    []optin.Code
	Filter   map[string]string
	Pager    pager
}

// consentsPage lists the consents, filtered by status, code and contact.
func (a *App) consentsPage(c *fiber.Ctx) error {
	f := map[string]string{"status": c.Query("status"), "code": c.Query("code"), "contact": c.Query("contact")}
	switch f["status"] {
	case "", "confirmed", "pending", "revoked":
	default:
		return &pageError{status: http.StatusUnprocessableEntity}
	}
	for _, k := range []string{"code", "contact"} {
		if f[k] != "" && !ids.Valid(f[k]) {
			return &pageError{status: http.StatusUnprocessableEntity}
		}
	}
	n, ok := pageNumber(c)
	if !ok {
		return &pageError{status: http.StatusUnprocessableEntity}
	}
	token, err := a.userToken(c)
	if err != nil {
		return err
	}
	list, err := a.optin.Consents(c.UserContext(), token, optin.ConsentQuery{Status: f["status"], OptInCodeID: f["code"],
		ContactID: f["contact"], ListOptions: optin.ListOptions{Page: n, PerPage: consentsPerPage}})
	if err != nil {
		return optinError(err)
	}
	codes, err := a.optin.Codes(c.UserContext(), token, optin.CodeQuery{ListOptions: optin.ListOptions{PerPage: codeNames}})
	if err != nil {
		return optinError(err)
	}
	names := map[string]string{}
	for _, code := range codes.Data {
		names[code.ID] = code.Name
	}
	filters := url.Values{}
	for k, v := range f {
		filters.Set(k, v)
	}
	d := consentsData{Codes: codes.Data, Filter: f, Pager: newPager(Base+"/opt-ins", filters, list.Meta.CurrentPage, list.Meta.LastPage)}
	for _, k := range list.Data {
		d.Consents = append(d.Consents, consentRow{Consent: k, CodeName: names[k.OptInCodeID]})
	}
	return a.render(c, "consents", page{Title: "Consents", Nav: "optin", Data: d})
}

// suppressionRow is an entry with its date as the date funcs take it.
type suppressionRow struct {
	optin.Suppression
	Created *time.Time
}

type suppressionData struct {
	Entries []suppressionRow
	Reasons []string
	Pager   pager
}

func (a *App) suppressionData(c *fiber.Ctx, token string) (suppressionData, error) {
	n, ok := pageNumber(c)
	if !ok {
		return suppressionData{}, &pageError{status: http.StatusUnprocessableEntity}
	}
	list, err := a.optin.Suppressions(c.UserContext(), token, optin.ListOptions{Page: n, PerPage: suppressionsPerPage})
	if err != nil {
		return suppressionData{}, optinError(err)
	}
	d := suppressionData{Reasons: []string{"manual", "bounce", "complaint"}, Pager: newPager(Base+"/suppression", nil, list.Meta.CurrentPage, list.Meta.LastPage)}
	for _, s := range list.Data {
		d.Entries = append(d.Entries, suppressionRow{Suppression: s, Created: optinTime(s.CreatedAt)})
	}
	return d, nil
}

func (a *App) suppressionPage(c *fiber.Ctx) error {
	token, err := a.userToken(c)
	if err != nil {
		return err
	}
	d, err := a.suppressionData(c, token)
	if err != nil {
		return err
	}
	return a.render(c, "suppression", page{Title: "Suppression list", Nav: "suppression", Data: d, Notice: optinNotice(c.Query("notice"))})
}

// refuseSuppression re-renders the suppression page with status 422 and
// the messages.
func (a *App) refuseSuppression(c *fiber.Ctx, token string, fields, form map[string]string) error {
	d, err := a.suppressionData(c, token)
	if err != nil {
		return err
	}
	c.Status(http.StatusUnprocessableEntity)
	return a.render(c, "suppression", page{Title: "Suppression list", Nav: "suppression", Data: d, Errors: fields, Form: form})
}

// maxSuppressPhone bounds a typed number (E.164 is at most 16 characters; a
// national format has some spaces and punctuation more).
const maxSuppressPhone = 32

// addSuppression suppresses the number typed in the form: the live contact
// with that number names the phone record the suppression list takes.
func (a *App) addSuppression(c *fiber.Ctx) error {
	number, reason := strings.TrimSpace(c.FormValue("phone")), c.FormValue("reason")
	form := map[string]string{"phone": number, "reason": reason}
	token, err := a.userToken(c)
	if err != nil {
		return err
	}
	refuse := func(fields map[string]string) error { return a.refuseSuppression(c, token, fields, form) }
	switch {
	case number == "":
		return refuse(map[string]string{"phone": "Enter the phone number to suppress."})
	case len(number) > maxSuppressPhone || strings.ContainsRune(number, 0) || !utf8.ValidString(number):
		return refuse(map[string]string{"phone": "Enter a phone number such as +14155550123."})
	}
	phones, ok := a.contacts.(ContactPhones)
	if !ok {
		return &pageError{status: http.StatusServiceUnavailable}
	}
	found, err := phones.Search(c.UserContext(), token, contacts.SearchQuery{Phone: number, Limit: 1})
	var ce *contacts.Error
	switch {
	case errors.As(err, &ce) && ce.Status == http.StatusUnprocessableEntity:
		return refuse(map[string]string{"phone": "Enter a phone number such as +14155550123."})
	case errors.As(err, &ce) && ce.Status == http.StatusForbidden:
		return &pageError{status: http.StatusForbidden}
	case err != nil:
		return err
	case len(found) == 0:
		return refuse(map[string]string{"phone": "No contact has this number. Add the contact first, then suppress the number."})
	}
	contact, err := phones.Contact(c.UserContext(), token, found[0].ContactID)
	if err != nil {
		return err
	}
	_, err = a.optin.AddSuppression(c.UserContext(), token, formIdempotencyKey(c),
		optin.SuppressionInput{ContactPhoneID: contact.PhoneID, Reason: reason})
	if fields, ok := validation(err, map[string]string{"contact_phone_id": "phone"}); ok {
		return refuse(fields)
	}
	if err != nil {
		return optinError(err)
	}
	return c.Redirect(Base+"/suppression?notice=suppressed", http.StatusSeeOther)
}

// removeSuppression lifts an entry of the list.
func (a *App) removeSuppression(c *fiber.Ctx) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	token, err := a.userToken(c)
	if err != nil {
		return err
	}
	err = a.optin.RemoveSuppression(c.UserContext(), token, formIdempotencyKey(c), id)
	if fields, ok := validation(err, nil); ok {
		msg := ""
		for _, m := range fields {
			msg = m
		}
		return a.refuseSuppression(c, token, map[string]string{"list": msg}, nil)
	}
	if err != nil {
		return optinError(err)
	}
	return c.Redirect(Base+"/suppression?notice=unsuppressed", http.StatusSeeOther)
}
