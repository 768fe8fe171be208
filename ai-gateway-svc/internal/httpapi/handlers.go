package httpapi

import (
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	contacts "github.com/paylane/paylane/contacts-svc/client"
	transactions "github.com/paylane/paylane/transactions-svc/client"

	"github.com/paylane/paylane/ai-gateway-svc/internal/wire"
	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/httpx"
)

// resolveContact answers POST /api/v1/gateway/resolve-contact:
// 200 {data: {status, candidates}}.
func (h *Handlers) resolveContact(c *fiber.Ctx) error {
	var body struct {
		Name  string `json:"name"`
		Phone string `json:"phone"`
		Email string `json:"email"`
	}
	if err := httpx.Decode(c, &body); err != nil {
		return err
	}
	if strings.TrimSpace(body.Name) == "" {
		return apierr.Field("name", "The name field is required.")
	}
	// A contact's name is at most 100 characters each way: a longer query
	// can match nothing, and it travels to contacts-svc in a query string.
	if err := maxChars(map[string]struct {
		value string
		max   int
	}{"name": {body.Name, maxNameChars}, "phone": {body.Phone, maxPhoneChars}, "email": {body.Email, maxEmailChars}}); err != nil {
		return err
	}
	res, err := h.app.Resolve(c.UserContext(), bearer(c), strings.TrimSpace(body.Name), body.Phone, body.Email)
	if err != nil {
		return err
	}
	return httpx.Data(c, http.StatusOK, wire.NewResolution(res))
}

// createContact answers POST /api/v1/gateway/contacts: 201 {data: contact}.
func (h *Handlers) createContact(c *fiber.Ctx) error {
	var body struct {
		FirstName string `json:"first_name"`
		LastName  string `json:"last_name"`
		Phone     string `json:"phone"`
		Email     string `json:"email"`
	}
	if err := httpx.Decode(c, &body); err != nil {
		return err
	}
	in := contacts.ContactInput{FirstName: body.FirstName, LastName: body.LastName, Phone: body.Phone, Email: body.Email}
	ct, err := h.app.CreateContact(c.UserContext(), bearer(c), in, idemKey(c))
	if err != nil {
		return err
	}
	return httpx.Data(c, http.StatusCreated, wire.NewContact(ct))
}

// prepareBody is the body of prepare.
type prepareBody struct {
	Direction   *string `json:"direction"`
	ContactID   string  `json:"contact_id"`
	Amount      int64   `json:"amount"`
	Currency    string  `json:"currency"`
	Description string  `json:"description"`
	SendAt      string  `json:"send_at"`
}

// prepare answers POST /api/v1/gateway/transactions/prepare: 201 {data: draft}.
// The gate is the create ability of the direction.
func (h *Handlers) prepare(c *fiber.Ctx) error {
	var body prepareBody
	if err := httpx.Decode(c, &body); err != nil {
		return err
	}
	if body.Direction == nil || !validDirection(*body.Direction) {
		return apierr.Field("direction", "The direction must be receivable or payable.")
	}
	if err := authz.Check(c, "api:create-"+*body.Direction); err != nil {
		return err
	}
	in := transactions.DraftInput{Direction: *body.Direction, ContactID: body.ContactID, Amount: body.Amount,
		Currency: body.Currency, Description: body.Description, SendAt: body.SendAt}
	d, err := h.app.Prepare(c.UserContext(), bearer(c), in, idemKey(c))
	if err != nil {
		return err
	}
	return httpx.Data(c, http.StatusCreated, wire.NewDraft(d))
}

// confirm answers POST /api/v1/gateway/transactions/{transaction}/confirm:
// 200 {data: {transaction_id, status}}. The gate is the create ability of
// the transaction's direction, learnt from its status first. When the
// caller may not view the transaction, transactions-svc's confirm applies
// the same create gate itself.
func (h *Handlers) confirm(c *fiber.Ctx) error {
	var body struct {
		SendAt *string `json:"send_at"`
	}
	if err := httpx.Decode(c, &body); err != nil {
		return err
	}
	var sendAt *time.Time
	if body.SendAt != nil {
		t, err := time.Parse(time.RFC3339, *body.SendAt)
		if err != nil {
			return apierr.Field("send_at", "The send_at field must be an ISO 8601 date-time with a time zone.")
		}
		sendAt = &t
	}
	id := strings.Clone(c.Params("transaction"))
	st, err := h.app.Status(c.UserContext(), bearer(c), id)
	switch {
	case err == nil:
		if err := authz.Check(c, "api:create-"+st.Direction); err != nil {
			return err
		}
	case statusOf(err) != http.StatusForbidden:
		return err
	}
	out, err := h.app.Confirm(c.UserContext(), bearer(c), id, sendAt, idemKey(c))
	if err != nil {
		return err
	}
	return httpx.Data(c, http.StatusOK, wire.Confirmed{TransactionID: out.TransactionID, Status: out.Status})
}

// status answers GET /api/v1/gateway/transactions/{reference}/status. The
// gate is the view ability of the transaction's direction.
func (h *Handlers) status(c *fiber.Ctx) error {
	st, err := h.app.Status(c.UserContext(), bearer(c), strings.Clone(c.Params("reference")))
	if err != nil {
		return err
	}
	if err := authz.Check(c, "api:view-"+st.Direction); err != nil {
		return err
	}
	return httpx.Data(c, http.StatusOK, st)
}

// Longest values resolve-contact takes: a first and a last name of 100
// characters with a space, a phone as a person may write it, an email.
const (
	maxNameChars  = 201
	maxPhoneChars = 64
	maxEmailChars = 254
)

// maxChars refuses the fields longer than their maximum, naming each.
func maxChars(fields map[string]struct {
	value string
	max   int
}) error {
	problems := map[string][]string{}
	for name, f := range fields {
		if utf8.RuneCountInString(f.value) > f.max {
			problems[name] = []string{fmt.Sprintf("The %s field must not be greater than %d characters.", name, f.max)}
		}
	}
	if len(problems) > 0 {
		return apierr.Validation(problems)
	}
	return nil
}
