package txn

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/paylane/paylane/transactions-svc/internal/fielddef"
	"github.com/paylane/paylane/transactions-svc/internal/verr"
)

// Field limits.
const (
	MaxDescriptionLength = 500
	MaxExternalIDLength  = 191
	MaxReferenceLength   = 191
	DefaultLinkTTLHours  = 72
	MinLinkTTLHours      = 1
	MaxLinkTTLHours      = 720
)

// Input is a create or PUT body as the client sent it; nil means absent or
// null. Amount is the raw JSON value, so a fraction or a string is told
// apart from a number.
type Input struct {
	ContactID         *string
	ContactExternalID *string
	// ContactObject is true when the body named its contact as
	// contact {external_id}.
	ContactObject bool
	Amount        json.RawMessage
	Currency      *string
	Description   *string
	DueDate       *string
	ExternalID    *string
	SendAt        *string
	LinkTTLHours  *int64
	CustomFields  map[string]json.RawMessage
}

// Rules are what validating input needs besides the input: the clock, the
// tenant's default currency and its field definitions.
type Rules struct {
	Now             time.Time
	DefaultCurrency string
	Definitions     fielddef.Set
}

// Fields are validated values of an item's mutable fields.
type Fields struct {
	Amount       int64
	Currency     string
	Description  *string
	DueDate      *string
	ExternalID   *string
	SendAt       *time.Time
	LinkTTLHours int
	CustomFields map[string]json.RawMessage
}

// ValidateCreate checks a create body. The contact reference is checked
// here for shape only (one of contact_id and contact.external_id); whether
// it names a live contact is contacts-svc's answer.
func ValidateCreate(in Input, r Rules) (Fields, error) {
	p := verr.Problems{}
	contactRef(p, in)
	return createFields(p, in, r)
}

// createFields validates the fields of a create into p and returns them
// with p's problems.
func createFields(p verr.Problems, in Input, r Rules) (Fields, error) {
	f := fields(p, in, r)
	if f.SendAt != nil && !f.SendAt.After(r.Now) {
		p.Add("send_at", "The send_at field must be a date after now.")
	}
	return f, p.Err()
}

// contactRef checks that exactly one contact reference is present.
func contactRef(p verr.Problems, in Input) {
	switch {
	case in.ContactID != nil && in.ContactObject:
		p.Add("contact_id", "The contact_id field is prohibited when contact is present.")
	case in.ContactObject && (in.ContactExternalID == nil || *in.ContactExternalID == ""):
		p.Add("contact.external_id", "The contact.external_id field is required.")
	case !in.ContactObject && (in.ContactID == nil || *in.ContactID == ""):
		p.Add("contact_id", "The contact_id field is required.")
	}
}

// fields validates the mutable fields shared by create and PUT.
func fields(p verr.Problems, in Input, r Rules) Fields {
	f := Fields{
		Amount:      amount(p, in.Amount),
		Currency:    currency(p, in.Currency, r.DefaultCurrency),
		Description: text(p, "description", in.Description, MaxDescriptionLength),
		ExternalID:  text(p, "external_id", in.ExternalID, MaxExternalIDLength),
		DueDate:     dueDate(p, in.DueDate),
		SendAt:      sendAt(p, in.SendAt),
	}
	f.LinkTTLHours = DefaultLinkTTLHours
	if in.LinkTTLHours != nil {
		if n := *in.LinkTTLHours; n < MinLinkTTLHours || n > MaxLinkTTLHours {
			p.Add("link_ttl_hours", fmt.Sprintf("The link_ttl_hours field must be between %d and %d.", MinLinkTTLHours, MaxLinkTTLHours))
		} else {
			f.LinkTTLHours = int(n)
		}
	}
	f.CustomFields = r.Definitions.Check(p, in.CustomFields)
	return f
}

// amount checks a whole number of minor units within the limits.
func amount(p verr.Problems, raw json.RawMessage) int64 {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		p.Add("amount", "The amount field is required.")
		return 0
	}
	var num json.Number
	if raw[0] == '"' || json.Unmarshal(raw, &num) != nil {
		p.Add("amount", "The amount field must be an integer.")
		return 0
	}
	n, err := strconv.ParseInt(num.String(), 10, 64)
	if err != nil {
		f, ferr := num.Float64()
		if ferr == nil && f == math.Trunc(f) && f > MaxAmount {
			p.Add("amount", fmt.Sprintf("The amount field must not be greater than %d.", MaxAmount))
		} else {
			p.Add("amount", "The amount field must be an integer.")
		}
		return 0
	}
	switch {
	case n < MinAmount:
		p.Add("amount", fmt.Sprintf("The amount field must be at least %d.", MinAmount))
	case n > MaxAmount:
		p.Add("amount", fmt.Sprintf("The amount field must not be greater than %d.", MaxAmount))
	}
	return n
}

func currency(p verr.Problems, c *string, def string) string {
	if c == nil {
		if def == "" {
			return DefaultCurrency
		}
		return def
	}
	code := strings.ToUpper(strings.TrimSpace(*c))
	if !KnownCurrency(code) {
		p.Add("currency", "The selected currency is invalid.")
		return ""
	}
	return code
}

// text trims an optional string and checks its length; "" counts as absent.
func text(p verr.Problems, field string, s *string, max int) *string {
	if s == nil {
		return nil
	}
	v := strings.TrimSpace(*s)
	if v == "" {
		return nil
	}
	if utf8.RuneCountInString(v) > max {
		p.Add(field, fmt.Sprintf("The %s field must not be greater than %d characters.", field, max))
		return nil
	}
	return &v
}

func dueDate(p verr.Problems, s *string) *string {
	if s == nil || *s == "" {
		return nil
	}
	if _, err := time.Parse(time.DateOnly, *s); err != nil {
		p.Add("due_date", "The due_date field must be a date in the format YYYY-MM-DD.")
		return nil
	}
	v := *s
	return &v
}

func sendAt(p verr.Problems, s *string) *time.Time {
	if s == nil || *s == "" {
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, *s)
	if err != nil {
		p.Add("send_at", "The send_at field must be an RFC 3339 date-time.")
		return nil
	}
	t = t.UTC().Truncate(time.Microsecond)
	return &t
}
