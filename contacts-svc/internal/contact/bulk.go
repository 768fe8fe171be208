package contact

// RowAction is what a bulk upsert did with a row.
type RowAction string

// The row actions. A failed row carries its errors and wrote nothing.
const (
	RowCreated RowAction = "created"
	RowUpdated RowAction = "updated"
	RowSkipped RowAction = "skipped"
	RowFailed  RowAction = "failed"
)

// OnDuplicate says what a bulk upsert does with a row whose external id
// names a live contact (or an earlier row of the batch).
type OnDuplicate string

// The duplicate policies (spec: options.on_duplicate, default update).
const (
	DuplicateUpdate OnDuplicate = "update"
	DuplicateSkip   OnDuplicate = "skip"
	DuplicateFail   OnDuplicate = "fail"
)

// Valid reports whether o is one of the policies.
func (o OnDuplicate) Valid() bool {
	return o == DuplicateUpdate || o == DuplicateSkip || o == DuplicateFail
}

// RowResult is the outcome of one bulk-upsert row, recorded under the
// batch id and row index so a resumed batch gets it back.
type RowResult struct {
	RowIndex  int
	ContactID string
	Action    RowAction
	Errors    map[string][]string
}

// Candidate is a contact found by a search, with its trigram similarity to
// the name searched (1 when only exact filters were given).
type Candidate struct {
	Contact Contact
	Score   float64
}
