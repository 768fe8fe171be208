package contact

import (
	"encoding/json"
	"fmt"
	"net/mail"
	"strings"
	"unicode/utf8"

	"github.com/paylane/paylane/libs/phone"
)

// Input is a full set of mutable fields as a client sends them, for a create
// or a PUT: nil means absent or null.
type Input struct {
	ExternalID   *string
	FirstName    *string
	LastName     *string
	Phone        *string
	Email        *string
	CustomFields map[string]json.RawMessage
}

// Patch is a partial update (PATCH): only the fields that are Set change.
type Patch struct {
	ExternalID   Nullable[string]
	FirstName    Nullable[string]
	LastName     Nullable[string]
	Phone        Nullable[string]
	Email        Nullable[string]
	CustomFields Nullable[map[string]json.RawMessage]
}

// Rules are what validating a contact needs to know about its tenant.
type Rules struct {
	// Region reads national phone numbers (ISO 3166-1 alpha-2, "US").
	Region string
	// Definitions are the tenant's contact field definitions.
	Definitions Definitions
}

// Validate checks a create or PUT and returns the normalised fields, or a
// *ValidationError naming every offending field.
func (r Rules) Validate(in Input) (Fields, error) {
	return r.fields(in, true, nil)
}

// ApplyPatch returns cur changed by p, validated. Custom fields are checked
// against the definitions only when p sends them, so a PATCH of a name is not
// refused because of a definition added since.
func (r Rules) ApplyPatch(cur Fields, p Patch) (Fields, error) {
	in := Input{
		ExternalID: pick(p.ExternalID, cur.ExternalID),
		FirstName:  pick(p.FirstName, cur.FirstName),
		LastName:   pick(p.LastName, cur.LastName),
		Phone:      pick(p.Phone, &cur.Phone),
		Email:      pick(p.Email, cur.Email),
	}
	if !p.CustomFields.Set {
		return r.fields(in, false, cur.CustomFields)
	}
	in.CustomFields = p.CustomFields.Value
	return r.fields(in, true, nil)
}

// pick returns the patched value when the patch sets it, else the current one.
func pick(n Nullable[string], cur *string) *string {
	if n.Set {
		return n.Ptr()
	}
	return cur
}

// fields validates in; keep replaces the custom fields when they are not checked.
func (r Rules) fields(in Input, checkCustom bool, keep map[string]json.RawMessage) (Fields, error) {
	p := problems{}
	f := Fields{
		ExternalID: optional(p, "external_id", in.ExternalID, MaxExternalIDLength),
		FirstName:  optional(p, "first_name", in.FirstName, MaxNameLength),
		LastName:   optional(p, "last_name", in.LastName, MaxNameLength),
		Phone:      r.phone(p, in.Phone),
		Email:      email(p, in.Email),
	}
	if checkCustom {
		f.CustomFields = r.Definitions.check(p, in.CustomFields)
	} else {
		f.CustomFields = keep
	}
	if f.CustomFields == nil {
		f.CustomFields = map[string]json.RawMessage{}
	}
	return f, p.err()
}

// optional trims an optional string: empty becomes nil; longer than max
// characters is a problem.
func optional(p problems, field string, v *string, max int) *string {
	if v == nil {
		return nil
	}
	s := strings.TrimSpace(*v)
	if s == "" {
		return nil
	}
	if utf8.RuneCountInString(s) > max {
		p.add(field, fmt.Sprintf("The %s field must not be greater than %d characters.", human(field), max))
		return nil
	}
	return &s
}

// phone normalises the required phone to E.164 in the tenant's region.
func (r Rules) phone(p problems, v *string) string {
	if v == nil || strings.TrimSpace(*v) == "" {
		p.add("phone", "The phone field is required.")
		return ""
	}
	e164, err := phone.Normalize(*v, r.Region)
	if err != nil { // unparseable or invalid: the client hears the same
		p.add("phone", "The phone field must be a valid phone number.")
		return ""
	}
	return e164
}

// email checks an optional email address: a bare addr-spec whose domain has a dot.
func email(p problems, v *string) *string {
	s := optional(p, "email", v, MaxEmailLength)
	if s == nil {
		return nil
	}
	if !ValidEmail(*s) {
		p.add("email", "The email field must be a valid email address.")
		return nil
	}
	return s
}

// ValidEmail reports whether s is a plain email address ("ada@example.com"):
// no display name, no angle brackets, a domain with a dot.
func ValidEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	domain := s[at+1:]
	return strings.Contains(domain, ".") && !strings.HasPrefix(domain, ".") && !strings.HasSuffix(domain, ".")
}

// human turns a field name into the words of a message ("first_name" → "first name").
func human(field string) string { return strings.ReplaceAll(field, "_", " ") }
