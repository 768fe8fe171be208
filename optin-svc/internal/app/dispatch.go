package app

import (
	"context"
	"errors"
	"net/url"
	"sync"
	"time"

	"github.com/paylane/paylane/libs/tenancy"
	"github.com/paylane/paylane/optin-svc/internal/optin"
	"github.com/paylane/paylane/optin-svc/internal/sms"
	"github.com/paylane/paylane/optin-svc/internal/store"
)

const (
	// dispatchBatch is how many due messages one pass leases.
	dispatchBatch = 100
	// sendConcurrency is how many provider calls one pass makes at a time.
	sendConcurrency = 8
	// leaseTime is how long a leased message is left to its dispatcher; a
	// dispatcher that dies mid-call leaves it due again after that.
	leaseTime = 2 * time.Minute
	// maxRetryDelay caps the backoff between provider calls.
	maxRetryDelay = 10 * time.Minute
	// sendWindow is how long after leasing a pass starts provider calls;
	// the messages it has not called by then are queued again, so that no
	// lease runs out while its call may still be made.
	sendWindow = leaseTime / 2
	// recordDelay is how long an answer may wait for others to be recorded
	// with it.
	recordDelay = 20 * time.Millisecond
	// recordTimeout bounds the write of a provider's answer, which runs
	// even when the dispatcher is stopping (the provider has answered).
	recordTimeout = 10 * time.Second
	// StatusCallbackPath is where the provider reports delivery.
	StatusCallbackPath = "/webhooks/sms/status"
)

// RunDispatcher sends due messages until ctx is done: at once when Wake is
// called, and every interval for retries that come due.
func (a *App) RunDispatcher(ctx context.Context, interval time.Duration) {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		for {
			n, err := a.DispatchDue(ctx)
			if err != nil {
				if ctx.Err() == nil {
					a.log.Warn("dispatching messages", "err", err)
				}
				break
			}
			if n < dispatchBatch {
				break
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-a.wake:
		case <-ticker.C:
		}
	}
}

// DispatchDue leases the due messages and makes one provider call for
// each; it returns how many it leased. The leased messages are worked a
// tenant at a time: one transaction prepares all of a tenant's (prepare);
// the provider calls run outside any transaction, sendConcurrency at a
// time across tenants (callProvider); and the answers are recorded in one
// transaction a tenant (record) once all have come, or recordDelay after
// the first one not recorded yet. Recording while calls are in flight
// keeps short the time in which a message the provider took is not yet
// recorded as sent, when a delivery report for it would be ignored.
func (a *App) DispatchDue(ctx context.Context) (int, error) {
	items, err := a.store.ClaimDue(ctx, a.timestamp(), leaseTime, dispatchBatch)
	if err != nil {
		return 0, err
	}
	leased := time.Now()
	var sends []*send
	for _, g := range tenancy.ByTenant(items, func(it store.QueueItem) string { return it.TenantID }) {
		sends = append(sends, a.prepare(ctx, g.Items)...)
	}
	answered := make(chan *send, len(sends))
	go a.callProvider(ctx, sends, leased.Add(sendWindow), answered)
	var (
		batch []*send
		due   <-chan time.Time
	)
	for {
		select {
		case s, ok := <-answered:
			if ok {
				batch = append(batch, s)
				if due == nil {
					due = time.After(recordDelay)
				}
				continue
			}
			a.recordBatch(ctx, batch)
			return len(items), nil
		case <-due:
			a.recordBatch(ctx, batch)
			batch, due = nil, nil
		}
	}
}

// recordBatch records the answers of batch, a transaction a tenant.
func (a *App) recordBatch(ctx context.Context, batch []*send) {
	for _, g := range tenancy.ByTenant(batch, func(s *send) string { return s.tenantID }) {
		a.record(ctx, g.Items)
	}
}

// send is a leased message that prepare cleared for a provider call, and
// the call's answer.
type send struct {
	tenantID string
	out      sms.Outgoing
	// called is false when the pass made no call for it (stopping, or
	// past sendWindow).
	called bool
	res    sms.Result
	err    error
}

// callProvider makes the provider call of each send, at most
// sendConcurrency at a time, each exactly once, and hands each send to
// answered once its call has returned; it closes answered when all have.
// It starts no call once ctx is done or after until (the messages' leases
// must outlast the calls and the record): those sends are handed over
// uncalled.
func (a *App) callProvider(ctx context.Context, sends []*send, until time.Time, answered chan<- *send) {
	defer close(answered)
	slots := make(chan struct{}, sendConcurrency)
	var wg sync.WaitGroup
	defer wg.Wait()
	for i, s := range sends {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil || time.Now().After(until) {
			for _, rest := range sends[i:] {
				answered <- rest
			}
			return
		}
		s.called = true
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			s.res, s.err = a.provider.Send(ctx, s.out)
			a.metrics.sent(a.provider.Name(), s.err)
			answered <- s
		}()
	}
}

// senderNumber is the tenant's own sender number (local copy, else
// identity-svc), else the deployment's default; "" when neither exists.
func (a *App) senderNumber(ctx context.Context, tenantID string) (string, error) {
	t, err := a.tenant(ctx, tenantID)
	if err != nil && !errors.Is(err, optin.ErrNotFound) {
		return "", err
	}
	if t.SMSNumber != "" {
		return t.SMSNumber, nil
	}
	return a.sending.DefaultFrom, nil
}

// retryDelay is the wait before the next provider call: RetryBase doubled
// per attempt made, at least what the provider asked for, at most
// maxRetryDelay.
func (a *App) retryDelay(attempts int, asked time.Duration) time.Duration {
	d := a.sending.RetryBase
	for i := 1; i < attempts && d < maxRetryDelay; i++ {
		d *= 2
	}
	return min(max(d, asked), maxRetryDelay)
}

// statusCallbackURL is where the provider reports the message's delivery;
// the tenant and message ids in it are covered by the provider's signature.
func (a *App) statusCallbackURL(tenantID, messageID string) string {
	if a.sending.PublicBaseURL == "" {
		return ""
	}
	q := url.Values{"tenant": {tenantID}, "message": {messageID}}
	return a.sending.PublicBaseURL + StatusCallbackPath + "?" + q.Encode()
}
