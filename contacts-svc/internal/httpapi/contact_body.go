package httpapi

import (
	"encoding/json"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
)

// contactBody is the body of POST /contacts: the mutable fields. Any other
// field is refused (422 naming it).
type contactBody struct {
	ExternalID   *string                    `json:"external_id"`
	FirstName    *string                    `json:"first_name"`
	LastName     *string                    `json:"last_name"`
	Phone        *string                    `json:"phone"`
	Email        *string                    `json:"email"`
	CustomFields map[string]json.RawMessage `json:"custom_fields"`
}

func (b contactBody) input() contact.Input {
	return contact.Input{
		ExternalID: b.ExternalID, FirstName: b.FirstName, LastName: b.LastName,
		Phone: b.Phone, Email: b.Email, CustomFields: b.CustomFields,
	}
}

// readOnlyContact are the fields of a contact a client may send back on PUT
// and PATCH (a resource it read and changed); they are ignored (contract
// section 2).
type readOnlyContact struct {
	ID          json.RawMessage `json:"id"`
	PhoneID     json.RawMessage `json:"phone_id"`
	CreatedAt   json.RawMessage `json:"created_at"`
	UpdatedAt   json.RawMessage `json:"updated_at"`
	DeletedAt   json.RawMessage `json:"deleted_at"`
	OptInStatus json.RawMessage `json:"opt_in_status"`
	Consents    json.RawMessage `json:"consents"`
}

// replaceBody is the body of PUT /contacts/{contact}.
type replaceBody struct {
	contactBody
	readOnlyContact
}

// patchBody is the body of PATCH /contacts/{contact}: absent fields keep
// their value, null clears an optional one.
type patchBody struct {
	ExternalID   contact.Nullable[string]                     `json:"external_id"`
	FirstName    contact.Nullable[string]                     `json:"first_name"`
	LastName     contact.Nullable[string]                     `json:"last_name"`
	Phone        contact.Nullable[string]                     `json:"phone"`
	Email        contact.Nullable[string]                     `json:"email"`
	CustomFields contact.Nullable[map[string]json.RawMessage] `json:"custom_fields"`
	readOnlyContact
}

func (b patchBody) patch() contact.Patch {
	return contact.Patch{
		ExternalID: b.ExternalID, FirstName: b.FirstName, LastName: b.LastName,
		Phone: b.Phone, Email: b.Email, CustomFields: b.CustomFields,
	}
}
