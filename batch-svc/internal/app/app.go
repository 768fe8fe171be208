// Package app holds batch-svc's use cases, one per file: submit a batch,
// read batches and their row errors, and process a claimed batch.
package app

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"github.com/paylane/paylane/batch-svc/internal/batch"
	"github.com/paylane/paylane/batch-svc/internal/store"
)

// WriteRequest is a chunk of a batch for the service that owns its
// records: Items[i] is row FirstRowIndex+i of batch BatchID.
type WriteRequest struct {
	BatchID       string
	Type          batch.Type
	Options       batch.Options
	FirstRowIndex int
	// EmitEvents asks for per-record events (suppress_webhooks false).
	EmitEvents bool
	Items      []json.RawMessage
}

// RowResult is the outcome of one row: failed rows carry their messages
// per field.
type RowResult struct {
	RowIndex int
	Failed   bool
	Errors   map[string][]string
}

// Writer writes chunks of one batch type through the owning service
// (contacts → contacts-svc, receivables and payables → transactions-svc).
// Each row is written under (batch id, row index), so a chunk sent again
// is answered from the record and never written twice. An error wrapping
// batch.ErrRejected is permanent (the batch fails); any other is transient
// and the chunk is retried.
type Writer interface {
	Write(ctx context.Context, tenantID string, req WriteRequest) ([]RowResult, error)
}

// Campaigns counts a campaign's sequence steps for the submit-time check
// of projected messages, with the submitter's internal token. An unknown
// or unusable campaign is a *batch.ValidationError naming
// options.campaign_id.
type Campaigns interface {
	CampaignSteps(ctx context.Context, token string, t batch.Type, campaignID string, autoAssign bool) (int, error)
}

// Limits are the deployment's defaults of the tenant limits.
type Limits struct {
	SubmissionsPerMinute int
	InFlight             int
	// InFlightRetryAfter is the Retry-After of a refusal for batches in flight.
	InFlightRetryAfter time.Duration
}

// Deps are what the use cases need.
type Deps struct {
	Store   *store.Store
	Writers map[batch.Type]Writer
	// Campaigns may be nil until transactions-svc offers the count.
	Campaigns Campaigns
	Limits    Limits
	// PublicBaseURL starts the links of the summary event's header.
	PublicBaseURL string
	// Wake tells the local workers a batch was queued (may be nil).
	Wake func()
	// WakeRelay tells the outbox relay an event was committed (may be nil).
	WakeRelay func()
	// Retry paces retries of a chunk after a transient failure.
	Retry Backoff
	// RetryFor bounds the retries of one write: a downstream that fails
	// transiently for this long counts as down and the batch ends failed
	// (default 1 h).
	RetryFor time.Duration
	// Metrics may be nil.
	Metrics *Metrics
	Log     *slog.Logger
	Now     func() time.Time
}

// Backoff is the delay before retry attempt n (0-based).
type Backoff struct {
	Base, Max time.Duration
}

// Delay returns the delay before attempt n.
func (b Backoff) Delay(n int) time.Duration {
	d := b.Base
	for range n {
		d *= 2
		if d >= b.Max {
			return b.Max
		}
	}
	return min(d, b.Max)
}

// App runs the use cases.
type App struct {
	d Deps
}

// New returns the use cases on d, with defaults for what d leaves out.
func New(d Deps) *App {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.Limits.SubmissionsPerMinute <= 0 {
		d.Limits.SubmissionsPerMinute = 10
	}
	if d.Limits.InFlight <= 0 {
		d.Limits.InFlight = 2
	}
	if d.Limits.InFlightRetryAfter <= 0 {
		d.Limits.InFlightRetryAfter = 5 * time.Second
	}
	if d.Retry.Base <= 0 {
		d.Retry = Backoff{Base: time.Second, Max: 30 * time.Second}
	}
	if d.RetryFor <= 0 {
		d.RetryFor = time.Hour
	}
	return &App{d: d}
}

// Store is the app's store (the workers claim through it).
func (a *App) Store() *store.Store { return a.d.Store }

func (a *App) now() time.Time { return a.d.Now().UTC().Truncate(time.Microsecond) }

// Supports reports whether batches of type t can be processed here.
func (a *App) Supports(t batch.Type) bool { return a.d.Writers[t] != nil }

func wake(f func()) {
	if f != nil {
		f()
	}
}

// isTransient reports whether a writer's error may go away by retrying
// the same request: not a refusal, nor a failure that may be a row's.
func isTransient(err error) bool {
	return !errors.Is(err, batch.ErrRejected) && !errors.Is(err, batch.ErrRefused) && !errors.Is(err, batch.ErrServerFailed)
}
