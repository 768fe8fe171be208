// Package app holds ai-gateway-svc's use cases: thin calls to contacts-svc
// and transactions-svc with the caller's internal token, the
// classification of a contact search, and the operations (operations.go)
// that the REST routes and the MCP tools both run.
package app

import (
	"context"
	"time"

	contacts "github.com/paylane/paylane/contacts-svc/client"
	transactions "github.com/paylane/paylane/transactions-svc/client"
)

// Contacts is the part of contacts-svc's client the gateway uses.
type Contacts interface {
	Search(ctx context.Context, token string, q contacts.SearchQuery) ([]contacts.Candidate, error)
	FindOrCreate(ctx context.Context, token string, in contacts.ContactInput, idempotencyKey string) (*contacts.Contact, bool, error)
}

// Transactions is the part of transactions-svc's client the gateway uses.
type Transactions interface {
	Prepare(ctx context.Context, token string, in transactions.DraftInput, idempotencyKey string) (*transactions.Draft, error)
	Confirm(ctx context.Context, token, transactionID string, sendAt *time.Time, idempotencyKey string) (*transactions.Confirmed, error)
	Status(ctx context.Context, token, reference string) (*transactions.Status, error)
}

// Resolution classes of a contact search (contract section 11).
const (
	Matched   = "matched"
	Ambiguous = "ambiguous"
	NotFound  = "not_found"
)

// MatchScore is the name similarity from which a single candidate is a
// match (docs/decisions.md).
const MatchScore = 0.6

// searchLimit is how many candidates a resolution shows at most.
const searchLimit = 10

// Resolution is the answer of resolve-contact.
type Resolution struct {
	Status     string
	Candidates []contacts.Candidate
}

// App runs the use cases.
type App struct {
	contacts Contacts
	txns     Transactions
}

// New returns the use cases over the peers.
func New(c Contacts, t Transactions) *App {
	return &App{contacts: c, txns: t}
}

// Resolve searches the contacts by name, narrowed by phone or email, and
// classifies the candidates.
func (a *App) Resolve(ctx context.Context, token, name, phone, email string) (Resolution, error) {
	list, err := a.contacts.Search(ctx, token, contacts.SearchQuery{Name: name, Phone: phone, Email: email, Limit: searchLimit})
	if err != nil {
		return Resolution{}, err
	}
	return Resolution{Status: Classify(list, phone != "" || email != ""), Candidates: list}, nil
}

// Classify classes candidates (best first): none is not_found; when an
// exact phone or email narrowed the search, exactly one candidate is
// matched; otherwise exactly one candidate scoring at least MatchScore is
// matched (weaker ones beside it do not count); anything else is ambiguous.
func Classify(list []contacts.Candidate, narrowed bool) string {
	if len(list) == 0 {
		return NotFound
	}
	strong := len(list)
	if !narrowed {
		strong = 0
		for _, c := range list {
			if c.Score >= MatchScore {
				strong++
			}
		}
	}
	if strong == 1 {
		return Matched
	}
	return Ambiguous
}

// CreateContact creates a contact (never finds one: there is no external id).
func (a *App) CreateContact(ctx context.Context, token string, in contacts.ContactInput, key string) (*contacts.Contact, error) {
	in.ExternalID = ""
	ct, _, err := a.contacts.FindOrCreate(ctx, token, in, key)
	return ct, err
}

// Prepare creates a draft receivable or payable.
func (a *App) Prepare(ctx context.Context, token string, in transactions.DraftInput, key string) (*transactions.Draft, error) {
	return a.txns.Prepare(ctx, token, in, key)
}

// Confirm sends or schedules a draft.
func (a *App) Confirm(ctx context.Context, token, id string, sendAt *time.Time, key string) (*transactions.Confirmed, error) {
	return a.txns.Confirm(ctx, token, id, sendAt, key)
}

// Status reads a transaction's status by any of its references.
func (a *App) Status(ctx context.Context, token, reference string) (*transactions.Status, error) {
	return a.txns.Status(ctx, token, reference)
}
