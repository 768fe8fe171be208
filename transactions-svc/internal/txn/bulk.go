package txn

import "github.com/paylane/paylane/transactions-svc/internal/verr"

// OnDuplicate is what a batch row does when its own external_id names a live
// item of the tenant, or an earlier row of the batch.
type OnDuplicate string

// The duplicate policies of a batch (spec section 4, Batch ingest).
const (
	DuplicateUpdate OnDuplicate = "update" // the PUT rules
	DuplicateSkip   OnDuplicate = "skip"   // counted as succeeded, nothing written
	DuplicateFail   OnDuplicate = "fail"   // a row error on external_id
)

// Valid reports whether p is a known policy.
func (p OnDuplicate) Valid() bool {
	return p == DuplicateUpdate || p == DuplicateSkip || p == DuplicateFail
}

// RowAction is the outcome of a batch row.
type RowAction string

// Row outcomes.
const (
	RowCreated RowAction = "created"
	RowUpdated RowAction = "updated"
	RowSkipped RowAction = "skipped"
	RowFailed  RowAction = "failed"
)

// RowResult is the outcome of one batch row: the item's id (created,
// updated, skipped) or the messages per field (failed).
type RowResult struct {
	RowIndex int
	ID       string
	Action   RowAction
	Errors   map[string][]string
}

// Messages of batch rows.
const (
	MsgExternalIDTaken = "The external_id has already been taken."
	MsgContactRequired = "The contact field is required."
)

// ValidateBatchCreate checks a batch item: the fields as ValidateCreate
// checks them, the contact as contact_id or a contact object. The object's
// own fields (external_id, names, phone, email) are contacts-svc's to
// check: an unknown external_id creates a contact from them.
func ValidateBatchCreate(in Input, r Rules) (Fields, error) {
	p := verr.Problems{}
	switch {
	case in.ContactID != nil && in.ContactObject:
		p.Add("contact_id", "The contact_id field is prohibited when contact is present.")
	case in.ContactObject:
	case in.ContactID == nil:
		p.Add("contact", MsgContactRequired)
	case *in.ContactID == "":
		p.Add("contact_id", "The contact_id field is required.")
	}
	return createFields(p, in, r)
}
