package app

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	contacts "github.com/paylane/paylane/contacts-svc/client"
	transactions "github.com/paylane/paylane/transactions-svc/client"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/authz"
)

// The operations below are the AI gateway's use cases as its REST routes
// and its MCP tools both run them: input rules, the ability gate and the
// call to the owning service, with errors already in the envelope's terms
// (*apierr.Error). The ai_gateway flag is checked before any of them, by
// the transport.

// Abilities the operations check besides the direction's create and view.
const (
	AbilityViewAnyContact = "api:view-any-contact"
	AbilityCreateContact  = "api:create-contact"
)

// Directions of a transaction.
const (
	Receivable = "receivable"
	Payable    = "payable"
)

// ToolAbilities are the abilities of the operations: a token needs one of
// them at least to use the MCP endpoint.
func ToolAbilities() []string {
	return []string{AbilityViewAnyContact, AbilityCreateContact, "api:create-" + Receivable, "api:create-" + Payable,
		"api:view-" + Receivable, "api:view-" + Payable}
}

// MaxIdempotencyKey is the longest Idempotency-Key (contract section 3).
const MaxIdempotencyKey = 128

// Caller is who an operation acts for: the verified claims of the
// internal token, and the token itself, forwarded to the peers.
type Caller struct {
	Claims *authz.Claims
	Token  string
}

// require is the ability gate: 401 without claims, 403 without the ability.
func (c Caller) require(ability string) error {
	if c.Claims == nil {
		return apierr.Unauthenticated()
	}
	if !c.Claims.Has(ability) {
		return apierr.Forbidden()
	}
	return nil
}

// ResolveInput is the body of resolve-contact.
type ResolveInput struct {
	Name  string `json:"name"`
	Phone string `json:"phone"`
	Email string `json:"email"`
}

// Longest values resolve-contact takes: a first and a last name of 100
// characters with a space, a phone as a person may write it, an email.
const (
	maxNameChars  = 201
	maxPhoneChars = 64
	maxEmailChars = 254
)

// ResolveContact finds the candidates for a recipient (api:view-any-contact).
func (a *App) ResolveContact(ctx context.Context, c Caller, in ResolveInput) (Resolution, error) {
	if err := c.require(AbilityViewAnyContact); err != nil {
		return Resolution{}, err
	}
	if strings.TrimSpace(in.Name) == "" {
		return Resolution{}, apierr.Field("name", "The name field is required.")
	}
	// A contact's name is at most 100 characters each way: a longer query
	// can match nothing, and it travels to contacts-svc in a query string.
	problems := map[string][]string{}
	for _, f := range []struct {
		name, value string
		max         int
	}{{"name", in.Name, maxNameChars}, {"phone", in.Phone, maxPhoneChars}, {"email", in.Email, maxEmailChars}} {
		if utf8.RuneCountInString(f.value) > f.max {
			problems[f.name] = []string{fmt.Sprintf("The %s field must not be greater than %d characters.", f.name, f.max)}
		}
	}
	if len(problems) > 0 {
		return Resolution{}, apierr.Validation(problems)
	}
	res, err := a.Resolve(ctx, c.Token, strings.TrimSpace(in.Name), in.Phone, in.Email)
	if err != nil {
		return Resolution{}, APIError(err)
	}
	return res, nil
}

// ContactInput is the body of the gateway's contact create.
type ContactInput struct {
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
	Phone     string `json:"phone"`
	Email     string `json:"email"`
}

// NewContact creates a contact (api:create-contact); contacts-svc checks
// the fields.
func (a *App) NewContact(ctx context.Context, c Caller, in ContactInput, key string) (*contacts.Contact, error) {
	if err := c.require(AbilityCreateContact); err != nil {
		return nil, err
	}
	ct, err := a.CreateContact(ctx, c.Token, contacts.ContactInput{FirstName: in.FirstName, LastName: in.LastName,
		Phone: in.Phone, Email: in.Email}, key)
	if err != nil {
		return nil, APIError(err)
	}
	return ct, nil
}

// PrepareInput is the body of prepare.
type PrepareInput struct {
	Direction   *string `json:"direction"`
	ContactID   string  `json:"contact_id"`
	Amount      int64   `json:"amount"`
	Currency    string  `json:"currency"`
	Description string  `json:"description"`
	SendAt      string  `json:"send_at"`
}

// PrepareDraft stores a draft; nothing is sent. The gate is the create
// ability of the direction; transactions-svc checks the rest, the tenant's
// AI guardrails included.
func (a *App) PrepareDraft(ctx context.Context, c Caller, in PrepareInput, key string) (*transactions.Draft, error) {
	if in.Direction == nil || !validDirection(*in.Direction) {
		return nil, apierr.Field("direction", "The direction must be receivable or payable.")
	}
	if err := c.require("api:create-" + *in.Direction); err != nil {
		return nil, err
	}
	d, err := a.Prepare(ctx, c.Token, transactions.DraftInput{Direction: *in.Direction, ContactID: in.ContactID,
		Amount: in.Amount, Currency: in.Currency, Description: in.Description, SendAt: in.SendAt}, key)
	if err != nil {
		return nil, APIError(err)
	}
	return d, nil
}

// ConfirmDraft sends or schedules a draft. The gate is the create ability
// of the transaction's direction, learnt from its status first; when the
// caller may not view the transaction, transactions-svc's confirm applies
// the same create gate itself.
func (a *App) ConfirmDraft(ctx context.Context, c Caller, id string, sendAt *string, key string) (*transactions.Confirmed, error) {
	var at *time.Time
	if sendAt != nil {
		t, err := time.Parse(time.RFC3339, *sendAt)
		if err != nil {
			return nil, apierr.Field("send_at", "The send_at field must be an ISO 8601 date-time with a time zone.")
		}
		at = &t
	}
	if c.Claims == nil {
		return nil, apierr.Unauthenticated()
	}
	st, err := a.Status(ctx, c.Token, id)
	switch {
	case err == nil:
		if err := c.require("api:create-" + st.Direction); err != nil {
			return nil, err
		}
	case statusOf(err) != http.StatusForbidden:
		return nil, APIError(err)
	}
	out, err := a.Confirm(ctx, c.Token, id, at, key)
	if err != nil {
		return nil, APIError(err)
	}
	return out, nil
}

// TransactionStatus reads a transaction's status by any of its references;
// the gate is the view ability of its direction.
func (a *App) TransactionStatus(ctx context.Context, c Caller, reference string) (*transactions.Status, error) {
	if c.Claims == nil {
		return nil, apierr.Unauthenticated()
	}
	st, err := a.Status(ctx, c.Token, reference)
	if err != nil {
		return nil, APIError(err)
	}
	if err := c.require("api:view-" + st.Direction); err != nil {
		return nil, err
	}
	return st, nil
}

// CheckIdempotencyKey refuses a key longer than the API takes.
func CheckIdempotencyKey(field, key string) error {
	if len(key) > MaxIdempotencyKey {
		return apierr.Field(field, fmt.Sprintf("The %s must not be greater than %d characters.", field, MaxIdempotencyKey))
	}
	return nil
}

// validDirection reports whether d is receivable or payable.
func validDirection(d string) bool { return d == Receivable || d == Payable }
