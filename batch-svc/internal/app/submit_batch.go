package app

import (
	"context"
	"math"
	"time"

	"github.com/paylane/paylane/batch-svc/internal/batch"
	"github.com/paylane/paylane/batch-svc/internal/store"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/ids"
)

// Caller is who submits: the tenant, the internal token of the request
// (for the campaign check) and the tenant's limits (zero means the
// deployment's default).
type Caller struct {
	TenantID             string
	Token                string
	SubmissionsPerMinute int
	InFlight             int
	// Tx is the request's write transaction (the zero idempotency.Tx
	// without Idempotency-Key), in which the batch is inserted.
	Tx idempotency.Tx
}

// limitWindow is the window of the submissions-per-minute limit.
const limitWindow = time.Minute

// Submit validates the envelope of a batch of type t and queues the batch.
// Nothing is written to other services: the workers do that. The limits
// are counted and the batch inserted under the tenant's submission lock in
// one transaction (the Idempotency-Key's when there is one), so they hold
// across replicas.
func (a *App) Submit(ctx context.Context, caller Caller, t batch.Type, env batch.Envelope) (batch.Header, error) {
	if !a.Supports(t) {
		return batch.Header{}, batch.ErrTypeUnsupported
	}
	sub, err := batch.Validate(t, env)
	if err != nil {
		return batch.Header{}, err
	}
	if err := a.checkCampaign(ctx, caller.Token, sub); err != nil {
		return batch.Header{}, err
	}
	now := a.now()
	h := batch.Header{
		ID: ids.NewAt(now), TenantID: caller.TenantID, Type: t, Status: batch.Queued,
		TotalItems: len(sub.Items), Options: sub.Options, CreatedAt: now, UpdatedAt: now,
	}
	wakeOnCommit := false
	err = a.d.Store.Write(ctx, caller.Tx, caller.TenantID, func(tx *store.Tx) error {
		if err := tx.LockTenantSubmissions(ctx); err != nil {
			return err
		}
		usage, err := tx.Usage(ctx, now.Add(-limitWindow))
		if err != nil {
			return err
		}
		if err := a.checkLimits(caller, usage, now); err != nil {
			return err
		}
		wakeOnCommit = tx.OnCommit(func() { wake(a.d.Wake) })
		return tx.InsertBatch(ctx, h, batch.Chunks(sub.Items))
	})
	if err != nil {
		return batch.Header{}, err
	}
	if !wakeOnCommit {
		wake(a.d.Wake)
	}
	return h, nil
}

// checkLimits refuses the submission when the tenant has its maximum of
// batches in flight or of submissions in the last minute.
func (a *App) checkLimits(caller Caller, u store.Usage, now time.Time) error {
	inFlight := orDefault(caller.InFlight, a.d.Limits.InFlight)
	if u.InFlight >= inFlight {
		return &batch.LimitError{InFlight: true, Limit: inFlight, RetryAfter: seconds(a.d.Limits.InFlightRetryAfter)}
	}
	perMinute := orDefault(caller.SubmissionsPerMinute, a.d.Limits.SubmissionsPerMinute)
	if u.Recent >= perMinute {
		return &batch.LimitError{Limit: perMinute, RetryAfter: seconds(u.OldestRecent.Add(limitWindow).Sub(now))}
	}
	return nil
}

// checkCampaign refuses a receivables or payables batch whose projected
// messages need an acknowledgement it lacks, or whose campaign is unknown.
func (a *App) checkCampaign(ctx context.Context, token string, sub batch.Submission) error {
	if sub.Type == batch.Contacts || a.d.Campaigns == nil {
		return nil
	}
	auto := sub.Options.AutoAssignCampaign != nil && *sub.Options.AutoAssignCampaign
	campaign := ""
	if sub.Options.CampaignID != nil {
		campaign = *sub.Options.CampaignID
	}
	if campaign == "" && !auto {
		return nil
	}
	steps, err := a.d.Campaigns.CampaignSteps(ctx, token, sub.Type, campaign, auto)
	if err != nil {
		return err
	}
	return batch.CheckMessagingVolume(sub, steps)
}

func orDefault(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// seconds is d in whole seconds, rounded up, at least 1.
func seconds(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}
