package dispatch

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/sony/gobreaker/v2"

	"github.com/paylane/paylane/webhook-svc/internal/app"
	"github.com/paylane/paylane/webhook-svc/internal/store"
	"github.com/paylane/paylane/webhook-svc/internal/webhook"
)

// errAttemptFailed tells an endpoint's breaker that an attempt failed.
var errAttemptFailed = errors.New("attempt failed")

// handle makes one attempt of a claimed delivery, or settles a claim that
// needs none (the delivery is gone, final, or its endpoint no longer live).
func (d *Dispatcher) handle(ctx context.Context, c store.Claim, job store.Job, found bool) {
	log := d.log.With("delivery_id", c.DeliveryID, "tenant_id", c.TenantID)
	switch {
	case !found || !webhook.Open(job.Status):
		if err := d.opts.Store.Unqueue(ctx, c); err != nil {
			log.Warn("unqueueing settled delivery", "err", err)
		}
		return
	case !job.Live:
		if err := d.opts.Store.Cancel(ctx, c, d.now()); err != nil {
			log.Warn("cancelling delivery of an inactive endpoint", "err", err)
		}
		return
	}
	keys, err := d.keys(job)
	if err != nil {
		// A key that does not open is the operator's to fix (a wrong
		// WEBHOOK_ENCRYPTION_KEY): keep the delivery, burn no attempt.
		log.Error("opening the endpoint's signing secret", "endpoint_id", job.Endpoint.ID, "err", err)
		d.deferTo(ctx, c, d.now().Add(d.opts.Lease), log)
		return
	}
	ep := d.endpoints.get(c.TenantID, job.Endpoint.ID)
	done, err := ep.breaker.Allow()
	if errors.Is(err, gobreaker.ErrOpenState) || errors.Is(err, gobreaker.ErrTooManyRequests) {
		d.metrics.deferrals.Inc()
		d.deferTo(ctx, c, d.now().Add(d.opts.BreakerOpenFor), log)
		return
	}
	ts := d.now()
	started := time.Now()
	res := d.send(ctx, ep.client, job.Endpoint.URL, job.EventID, ts, job.Body, keys)
	elapsed := time.Since(started)
	if res.ok {
		done(nil)
	} else {
		done(errAttemptFailed)
	}
	d.record(ctx, c, job, ts, elapsed, res, log)
}

// keys opens the endpoint's signing keys: the current secret, and the
// previous one while its grace period lasts.
func (d *Dispatcher) keys(job store.Job) ([][]byte, error) {
	e := job.Endpoint
	aad := app.AAD(job.TenantID, e.ID)
	secret, err := d.opts.Sealer.Open(e.Secret, aad)
	if err != nil {
		return nil, err
	}
	key, err := webhook.SecretKey(string(secret))
	if err != nil {
		return nil, err
	}
	keys := [][]byte{key}
	if e.PreviousSecret != nil && e.PreviousSecretUntil != nil && d.now().Before(*e.PreviousSecretUntil) {
		prev, err := d.opts.Sealer.Open(e.PreviousSecret, aad)
		if err != nil {
			return nil, err
		}
		pk, err := webhook.SecretKey(string(prev))
		if err != nil {
			return nil, err
		}
		keys = append(keys, pk)
	}
	return keys, nil
}

// record stores the attempt and the delivery's next step.
func (d *Dispatcher) record(ctx context.Context, c store.Claim, job store.Job, at time.Time, elapsed time.Duration, res result, log *slog.Logger) {
	o := store.Outcome{
		Claim: c, Attempt: job.AttemptCount + 1, Succeeded: res.ok, ResponseStatus: res.status,
		AttemptedAt: at, Duration: elapsed, EndpointID: job.Endpoint.ID, Status: webhook.StatusSucceeded,
	}
	if !res.ok {
		msg := res.err
		o.Error = &msg
		o.Status = webhook.StatusFailed
		if wait, ok := webhook.NextDelay(o.Attempt, d.opts.Jitter(), res.retryAfter); ok {
			next := at.Add(scale(wait, d.opts.TimeScale)).Truncate(time.Microsecond)
			o.Status, o.NextAttemptAt = webhook.StatusRetrying, &next
		}
	}
	rec, err := d.recorder.record(ctx, c.TenantID, o)
	disabled := rec.Disabled
	if err != nil {
		log.Warn("recording attempt", "err", err)
		return
	}
	outcome := "failed"
	if res.ok {
		outcome = "succeeded"
	}
	d.metrics.attempts.WithLabelValues(outcome).Inc()
	d.metrics.duration.Observe(elapsed.Seconds())
	if o.Attempt == 1 {
		d.metrics.lag.Observe(at.Sub(job.EventAt).Seconds() + elapsed.Seconds())
	}
	if disabled {
		d.metrics.disabled.Inc()
		log.Info("endpoint disabled after consecutive failures", "endpoint_id", job.Endpoint.ID,
			"failures", webhook.DisableThreshold)
	}
}

// deferTo moves a claimed delivery to until without an attempt.
func (d *Dispatcher) deferTo(ctx context.Context, c store.Claim, until time.Time, log *slog.Logger) {
	if err := d.opts.Store.Defer(ctx, c, until.Truncate(time.Microsecond), d.now()); err != nil {
		log.Warn("deferring delivery", "err", err)
	}
}
