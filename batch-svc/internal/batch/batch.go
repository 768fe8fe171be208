// Package batch is batch-svc's domain: a batch's header, its types and
// states, the options of a submission and the rules of its envelope. It
// imports neither HTTP nor SQL.
package batch

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/paylane/paylane/libs/apierr"
)

// Type is what a batch ingests.
type Type string

// The batch types.
const (
	Contacts    Type = "contacts"
	Receivables Type = "receivables"
	Payables    Type = "payables"
)

// Types returns every batch type.
func Types() []Type { return []Type{Contacts, Receivables, Payables} }

// Valid reports whether t is a known type.
func (t Type) Valid() bool { return t == Contacts || t == Receivables || t == Payables }

// MaxItems is the most items a batch of type t may carry.
func (t Type) MaxItems() int {
	if t == Contacts {
		return 10000
	}
	return 5000
}

// EventDomain is the first segment of the type's events: contact,
// receivable or payable.
func (t Type) EventDomain() string {
	switch t {
	case Contacts:
		return "contact"
	case Receivables:
		return "receivable"
	case Payables:
		return "payable"
	}
	return ""
}

// CompletedEvent is the type of the summary event of a finished batch.
func (t Type) CompletedEvent() string { return t.EventDomain() + ".batch.completed" }

// ViewAnyAbility is the ability that gates reading batches of type t.
func (t Type) ViewAnyAbility() string { return "api:view-any-" + t.EventDomain() }

// CreateAbility is the ability that gates submitting batches of type t
// (the single-item create's).
func (t Type) CreateAbility() string { return "api:create-" + t.EventDomain() }

// Status is where a batch is in its life (spec section 3).
type Status string

// The batch states.
const (
	Queued         Status = "queued"
	Processing     Status = "processing"
	Completed      Status = "completed"
	PartialFailure Status = "partial_failure"
	Failed         Status = "failed"
)

// Statuses returns every state.
func Statuses() []Status { return []Status{Queued, Processing, Completed, PartialFailure, Failed} }

// Valid reports whether s is a known state.
func (s Status) Valid() bool {
	for _, v := range Statuses() {
		if v == s {
			return true
		}
	}
	return false
}

// Final reports whether s ends a batch.
func (s Status) Final() bool { return s == Completed || s == PartialFailure || s == Failed }

// ChunkSize is the most items a worker sends downstream at once, so
// processed_items advances at least every ChunkSize items.
const ChunkSize = 500

// Header is a batch as the API shows it (spec section 2, Batch header).
type Header struct {
	ID             string
	TenantID       string
	Type           Type
	Status         Status
	TotalItems     int
	ProcessedItems int
	SucceededItems int
	FailedItems    int
	Options        Options
	FailureReason  *string
	StartedAt      *time.Time
	CompletedAt    *time.Time
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// FinalStatus is the state a batch ends in once every chunk is recorded:
// partial_failure when any row failed (even all), else completed.
func (h Header) FinalStatus() Status {
	if h.FailedItems > 0 {
		return PartialFailure
	}
	return Completed
}

// RowError is one message about one rejected row.
type RowError struct {
	RowIndex   int
	ExternalID string
	Field      string
	Message    string
}

// Chunk is a run of a batch's items, rows FirstRowIndex onwards.
type Chunk struct {
	Index         int
	FirstRowIndex int
	Items         []json.RawMessage
}

// Errors of the use cases.
var (
	// ErrNotFound: the tenant has no such batch.
	ErrNotFound = apierr.NewSentinel("batch: not found", apierr.NotFound())
	// ErrForbidden: the caller may not act on batches of this type.
	ErrForbidden = apierr.NewSentinel("batch: forbidden", apierr.Forbidden())
	// ErrTypeUnsupported: no writer is wired for the batch type yet.
	ErrTypeUnsupported = apierr.NewSentinel("batch: type not supported by this deployment",
		apierr.Unavailable("Batches of this type cannot be submitted yet: their records' service does not accept batches.", 0))
	// ErrLeaseLost: another worker holds the batch now.
	ErrLeaseLost = errors.New("batch: lease lost")
	// ErrUnavailable: a service the submission needed did not answer.
	ErrUnavailable = apierr.NewSentinel("batch: a peer service is unavailable",
		apierr.Unavailable("A service the submission needs is unavailable; retry shortly.", 5))
	// ErrRejected: the downstream service refused a chunk for good (not a
	// row error, not a transient failure): it refused the batch itself
	// (401, 403, 404, 405), whatever its rows hold.
	ErrRejected = errors.New("batch: chunk rejected downstream")
	// ErrTooLarge: the downstream service refused a request as too large
	// (413). It comes wrapped with ErrRejected: a worker splits the chunk
	// instead, down to single items.
	ErrTooLarge = errors.New("batch: request too large for the downstream")
	// ErrRefused: the downstream service refused a request's content (a
	// 4xx other than the batch-level ones and 408, 413, 429): some row of
	// it cannot be written. It comes as a *RefusedError: a worker splits
	// the request down to the single rows it refuses, each a row error.
	ErrRefused = errors.New("batch: request refused downstream")
	// ErrServerFailed: the downstream service failed a request (500, 501,
	// 505): possibly on one row's content. A worker splits the request
	// down to single rows; a row still failing while other rows of its
	// chunk are written is a row error, and a chunk none of whose rows is
	// written is retried as a transient failure.
	ErrServerFailed = errors.New("batch: request failed downstream")
)

// RefusedError is an ErrRefused with the downstream's messages per field
// (empty when it named none).
type RefusedError struct {
	Fields map[string][]string
	Err    error
}

func (e *RefusedError) Error() string { return "batch: request refused downstream: " + e.Err.Error() }

// Unwrap makes errors.Is(err, ErrRefused) true, and reaches the cause.
func (e *RefusedError) Unwrap() []error { return []error{ErrRefused, e.Err} }

// ValidationError is a malformed envelope: messages per field.
type ValidationError struct {
	Fields map[string][]string
}

func (e *ValidationError) Error() string { return "batch: invalid envelope" }

// APIError answers 422 validation_failed with the fields' messages.
func (e *ValidationError) APIError() *apierr.Error { return apierr.Validation(e.Fields) }

// LimitError is a refused submission: too many per minute, or too many in
// flight. RetryAfter is in whole seconds.
type LimitError struct {
	InFlight   bool
	Limit      int
	RetryAfter int
}

// APIError answers 429 with Retry-After, and the limit's X-RateLimit-Limit
// and X-RateLimit-Remaining (rate_limited, or
// batch_concurrency_limit_reached for batches in flight).
func (e *LimitError) APIError() *apierr.Error {
	ae := apierr.New(http.StatusTooManyRequests, apierr.CodeRateLimited,
		"Too many batch submissions; retry after "+strconv.Itoa(e.RetryAfter)+" seconds.")
	if e.InFlight {
		ae = apierr.New(http.StatusTooManyRequests, apierr.CodeBatchConcurrencyLimit,
			"The tenant already has "+strconv.Itoa(e.Limit)+" batches in flight; retry when one has finished.")
	}
	ae.RetryAfter = e.RetryAfter
	ae.Headers = map[string]string{"X-RateLimit-Limit": strconv.Itoa(e.Limit), "X-RateLimit-Remaining": "0"}
	return ae
}

func (e *LimitError) Error() string {
	if e.InFlight {
		return "batch: too many batches in flight"
	}
	return "batch: too many batch submissions"
}
