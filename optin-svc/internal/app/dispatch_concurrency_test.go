package app_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/paylane/paylane/optin-svc/internal/optin"
	"github.com/paylane/paylane/optin-svc/internal/sms"
	"github.com/paylane/paylane/optin-svc/internal/store"
)

// TestDispatchCallsTheProviderConcurrentlyOncePerMessage: a pass makes its
// provider calls several at a time (the fake holds every call until four
// are in flight), never more than eight, and each message's exactly once.
func TestDispatchCallsTheProviderConcurrentlyOncePerMessage(t *testing.T) {
	t.Parallel()
	provider := newFakeProvider(4, nil)
	e := newDispatchEnv(t, provider, dispatchFrom)
	var all []string
	for i := range 40 {
		all = append(all, e.queue(t, fmt.Sprintf("tn_dispatch_conc_%d", i%2), fmt.Sprintf("+141555504%02d", i)))
	}
	if n, err := e.app.DispatchDue(context.Background()); err != nil || n != 40 {
		t.Fatalf("DispatchDue = %d, %v; want 40", n, err)
	}
	for i, id := range all {
		if got := provider.callsOf(id); got != 1 {
			t.Errorf("provider calls of %s = %d, want 1", id, got)
		}
		if m := e.message(t, fmt.Sprintf("tn_dispatch_conc_%d", i%2), id); m.Status != optin.MessageDelivered {
			t.Errorf("message %s = %s, want delivered", id, m.Status)
		}
	}
	provider.mu.Lock()
	defer provider.mu.Unlock()
	if provider.maxInFlight < 4 || provider.maxInFlight > 8 {
		t.Errorf("at most %d provider calls were in flight at once, want 4 to 8", provider.maxInFlight)
	}
}

// TestDispatchStoppingMidPassRecordsWhatWasCalled: a dispatcher stopped
// during its calls records the answers of the calls it made (delivered)
// and makes no more; the messages it did not call are due again at once,
// without lease or attempt, and the next pass sends them.
func TestDispatchStoppingMidPassRecordsWhatWasCalled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	provider := newFakeProvider(0, func(out sms.Outgoing, _ int) (sms.Result, error) {
		cancel()
		return sms.Result{ProviderMessageID: "FK" + out.MessageID, Delivered: true}, nil
	})
	e := newDispatchEnv(t, provider, dispatchFrom)
	const tenant = "tn_dispatch_stop"
	var all []string
	for i := range 30 {
		all = append(all, e.queue(t, tenant, fmt.Sprintf("+141555505%02d", i)))
	}
	if n, err := e.app.DispatchDue(ctx); err != nil || n != 30 {
		t.Fatalf("DispatchDue = %d, %v; want 30", n, err)
	}
	now := e.clock.Now()
	called := 0
	for _, id := range all {
		m := e.message(t, tenant, id)
		due, leased, queued := e.queued(t, id)
		switch provider.callsOf(id) {
		case 1:
			called++
			if m.Status != optin.MessageDelivered || queued {
				t.Errorf("called message = %s (queued %v), want delivered and out of the queue", m.Status, queued)
			}
		case 0:
			if m.Status != optin.MessageQueued || m.Attempts != 0 || !queued || leased || !due.Equal(now) {
				t.Errorf("uncalled message = %s after %d attempts, queued %v due %v leased %v; want queued, due now (%v), no lease",
					m.Status, m.Attempts, queued, due, leased, now)
			}
		default:
			t.Errorf("message %s called %d times", id, provider.callsOf(id))
		}
	}
	if called == 0 || called > 8 {
		t.Errorf("%d calls made after the stop began, want 1 to 8 (those already started)", called)
	}
	n, err := e.app.DispatchDue(context.Background())
	if err != nil || n != 30-called {
		t.Fatalf("next pass = %d, %v; want the %d uncalled messages", n, err, 30-called)
	}
	for _, id := range all {
		if m := e.message(t, tenant, id); m.Status != optin.MessageDelivered || provider.callsOf(id) != 1 {
			t.Errorf("message %s = %s after %d calls, want delivered after one", id, m.Status, provider.callsOf(id))
		}
	}
}

// TestDispatchRecordsAnswersAsTheyCome: an answer is recorded while other
// calls of the pass are still in flight, so a delivery report that follows
// the provider's acceptance finds the message sent. The fake holds the
// second message's call until the first is recorded sent (at most 10 s,
// after which it refuses the second for good and the test fails).
func TestDispatchRecordsAnswersAsTheyCome(t *testing.T) {
	t.Parallel()
	const tenant = "tn_dispatch_stream"
	var (
		e           *dispatchEnv
		first, last string
	)
	provider := newFakeProvider(0, func(out sms.Outgoing, _ int) (sms.Result, error) {
		if out.MessageID != last {
			return sms.Result{ProviderMessageID: "SM" + out.MessageID}, nil
		}
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			var status string
			_ = e.store.Read(context.Background(), tenant, func(tx *store.Tx) error {
				m, err := tx.Message(context.Background(), first, false)
				status = m.Status
				return err
			})
			if status == optin.MessageSent {
				return sms.Result{ProviderMessageID: "SM" + out.MessageID}, nil
			}
		}
		return sms.Result{}, &sms.Error{Status: 400, Reason: "the first message was not recorded meanwhile"}
	})
	e = newDispatchEnv(t, provider, dispatchFrom)
	first = e.queue(t, tenant, "+14155550601")
	last = e.queue(t, tenant, "+14155550602")
	if n, err := e.app.DispatchDue(context.Background()); err != nil || n != 2 {
		t.Fatalf("DispatchDue = %d, %v; want 2", n, err)
	}
	for _, id := range []string{first, last} {
		if m := e.message(t, tenant, id); m.Status != optin.MessageSent {
			t.Errorf("message %s = %s (%s), want sent", id, m.Status, m.FailureReason)
		}
	}
}

// TestDispatchRecordsTheOthersWhenOneRecordFails: when the write of one
// message's answer fails (here a trigger refuses it), the tenant's other
// answers are still recorded, each in a transaction of its own, and only
// that message stays leased, to come due again when its lease runs out;
// no message is handed to the provider twice.
func TestDispatchRecordsTheOthersWhenOneRecordFails(t *testing.T) {
	t.Parallel()
	provider := newFakeProvider(0, nil)
	e := newDispatchEnv(t, provider, dispatchFrom)
	const tenant = "tn_dispatch_fallback"
	var all []string
	for i := range 5 {
		all = append(all, e.queue(t, tenant, fmt.Sprintf("+141555507%02d", i)))
	}
	bad := all[2]
	if _, err := e.owner.Exec(context.Background(), `CREATE FUNCTION refuse_delivered() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'refused by the test'; END $$;
		CREATE TRIGGER refuse_delivered BEFORE UPDATE ON messages FOR EACH ROW
		WHEN (NEW.id = '`+bad+`' AND NEW.status = 'delivered') EXECUTE FUNCTION refuse_delivered()`); err != nil {
		t.Fatal(err)
	}
	if n, err := e.app.DispatchDue(context.Background()); err != nil || n != 5 {
		t.Fatalf("DispatchDue = %d, %v; want 5", n, err)
	}
	for _, id := range all {
		m := e.message(t, tenant, id)
		_, leased, queued := e.queued(t, id)
		if provider.callsOf(id) != 1 {
			t.Errorf("message %s was handed to the provider %d times, want once", id, provider.callsOf(id))
		}
		if id == bad {
			if m.Status != optin.MessageQueued || !queued || !leased {
				t.Errorf("refused record: message %s, queued %v, leased %v; want queued and still leased", m.Status, queued, leased)
			}
			continue
		}
		if m.Status != optin.MessageDelivered || queued {
			t.Errorf("message %s = %s (queued %v), want delivered and out of the queue", id, m.Status, queued)
		}
	}
	if n, err := e.app.DispatchDue(context.Background()); err != nil || n != 0 {
		t.Errorf("next pass = %d, %v; want nothing (the refused message keeps its lease)", n, err)
	}
}
