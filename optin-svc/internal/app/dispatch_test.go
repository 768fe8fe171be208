package app_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/optin-svc/internal/optin"
	"github.com/paylane/paylane/optin-svc/internal/sms"
	"github.com/paylane/paylane/optin-svc/internal/store"
)

// TestDispatchRecordsEachTenantInItsOwnScope: one pass over the messages
// of three tenants sends each once and records each in its tenant's scope:
// delivered (the provider's answer), out of the queue, message.sent then
// message.delivered in the tenant's outbox, and the conversation under the
// tenant.
func TestDispatchRecordsEachTenantInItsOwnScope(t *testing.T) {
	t.Parallel()
	provider := newFakeProvider(0, nil)
	e := newDispatchEnv(t, provider, dispatchFrom)
	tenants := []string{"tn_dispatch_a", "tn_dispatch_b", "tn_dispatch_c"}
	messages := map[string][]string{}
	for i := range 5 { // interleaved, as the queue's order mixes tenants
		for j, tn := range tenants {
			messages[tn] = append(messages[tn], e.queue(t, tn, fmt.Sprintf("+1415555%02d%02d", j, i)))
		}
	}
	n, err := e.app.DispatchDue(context.Background())
	if err != nil || n != 15 {
		t.Fatalf("DispatchDue = %d, %v; want 15 leased", n, err)
	}
	for _, tn := range tenants {
		byMessage, envs := e.events(t, tn)
		for _, id := range messages[tn] {
			m := e.message(t, tn, id)
			if m.Status != optin.MessageDelivered || m.ProviderMessageID != "FK"+id || m.From != dispatchFrom || m.Attempts != 1 ||
				m.TenantID != tn {
				t.Errorf("message %s of %s = %+v, want delivered from the default number after one attempt", id, tn, m)
			}
			if got := provider.callsOf(id); got != 1 {
				t.Errorf("provider calls of %s = %d, want 1", id, got)
			}
			if _, _, ok := e.queued(t, id); ok {
				t.Errorf("message %s is still queued", id)
			}
			want := []string{events.TypeMessageSent, events.TypeMessageDelivered}
			if diff := cmp.Diff(want, byMessage[id]); diff != "" {
				t.Errorf("events of %s (-want +got):\n%s", id, diff)
			}
		}
		if len(envs) != 2*len(messages[tn]) {
			t.Errorf("%s's outbox holds %d events, want %d (its own messages' only)", tn, len(envs), 2*len(messages[tn]))
		}
		for _, env := range envs {
			if env.TenantID != tn {
				t.Errorf("event %s in %s's outbox names tenant %s", env.ID, tn, env.TenantID)
			}
		}
		var conversations int
		err := e.owner.QueryRow(context.Background(), `SELECT count(*) FROM conversations WHERE tenant_id = $1 AND from_phone = $2`,
			tn, dispatchFrom).Scan(&conversations)
		if err != nil || conversations != len(messages[tn]) {
			t.Errorf("%s has %d conversations (%v), want %d", tn, conversations, err, len(messages[tn]))
		}
	}
	if n, err := e.app.DispatchDue(context.Background()); err != nil || n != 0 {
		t.Errorf("second pass = %d, %v; want nothing left to lease", n, err)
	}
}

// TestDispatchRecordsEachOutcomeOfAMixedPass: in one pass of one tenant, a
// number suppressed after its message was queued gets no call (suppressed),
// a transient refusal is queued again after the retry delay and sent by a
// later pass, a permanent refusal fails its message, an unreachable
// number's refusal also suppresses the number (bounce), and the others are
// sent; each message is recorded with its own outcome.
func TestDispatchRecordsEachOutcomeOfAMixedPass(t *testing.T) {
	t.Parallel()
	const (
		tenant       = "tn_dispatch_mixed"
		toSuppressed = "+14155550101"
		toTransient  = "+14155550102"
		toRefused    = "+14155550103"
		toBounce     = "+14155550104"
	)
	provider := newFakeProvider(0, func(out sms.Outgoing, call int) (sms.Result, error) {
		switch {
		case out.To == toTransient && call == 1:
			return sms.Result{}, &sms.Error{Transient: true, Status: 503, Reason: "provider unavailable"}
		case out.To == toRefused:
			return sms.Result{}, &sms.Error{Status: 400, Code: "21211", Reason: "provider error 21211"}
		case out.To == toBounce:
			return sms.Result{}, &sms.Error{Status: 400, Code: "30005", Reason: "provider error 30005"}
		}
		return sms.Result{ProviderMessageID: "SM" + out.MessageID}, nil // accepted; delivery reported later
	})
	e := newDispatchEnv(t, provider, dispatchFrom)
	ctx := context.Background()
	suppressed := e.queue(t, tenant, toSuppressed)
	transient := e.queue(t, tenant, toTransient)
	refused := e.queue(t, tenant, toRefused)
	bounce := e.queue(t, tenant, toBounce)
	var sent []string
	for i := range 3 {
		sent = append(sent, e.queue(t, tenant, fmt.Sprintf("+141555502%02d", i)))
	}
	err := e.store.Write(ctx, idempotency.Tx{}, tenant, func(tx *store.Tx) error {
		_, _, err := tx.AddSuppression(ctx, optin.Suppression{ID: ids.New(), Phone: toSuppressed, Reason: optin.ReasonManual,
			Channel: optin.ChannelSMS, Source: optin.SourceAPI, CreatedAt: e.clock.Now()})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}

	if n, err := e.app.DispatchDue(ctx); err != nil || n != 7 {
		t.Fatalf("DispatchDue = %d, %v; want 7 leased", n, err)
	}
	now := e.clock.Now()
	check := func(id, status string, attempts int, reason string) {
		t.Helper()
		m := e.message(t, tenant, id)
		if m.Status != status || m.Attempts != attempts || m.FailureReason != reason {
			t.Errorf("message to %s = %s after %d attempts (%q), want %s after %d (%q)", m.To, m.Status, m.Attempts,
				m.FailureReason, status, attempts, reason)
		}
	}
	check(suppressed, optin.MessageSuppressed, 0, "")
	check(transient, optin.MessageQueued, 1, "provider unavailable")
	check(refused, optin.MessageFailed, 1, "provider error 21211")
	check(bounce, optin.MessageFailed, 1, "provider error 30005")
	for _, id := range sent {
		check(id, optin.MessageSent, 1, "")
		if m := e.message(t, tenant, id); m.ProviderMessageID != "SM"+id || m.SentAt == nil || m.DeliveredAt != nil {
			t.Errorf("sent message = %+v, want the provider's id and sent_at only", m)
		}
	}
	if got := provider.callsOf(suppressed); got != 0 {
		t.Errorf("the suppressed number got %d calls, want 0", got)
	}
	for _, id := range append([]string{transient, refused, bounce}, sent...) {
		if got := provider.callsOf(id); got != 1 {
			t.Errorf("provider calls of %s = %d, want 1", id, got)
		}
	}
	if due, leased, ok := e.queued(t, transient); !ok || leased || !due.Equal(now.Add(time.Minute)) {
		t.Errorf("transient refusal queued = %v, due %v, leased %v; want due at %v (the retry delay), no lease",
			ok, due, leased, now.Add(time.Minute))
	}
	for _, id := range append([]string{suppressed, refused, bounce}, sent...) {
		if _, _, ok := e.queued(t, id); ok {
			t.Errorf("message %s is still queued", id)
		}
	}
	byMessage, envs := e.events(t, tenant)
	want := map[string][]string{suppressed: {events.TypeMessageSuppressed}, refused: {events.TypeMessageFailed},
		bounce: {events.TypeMessageFailed}}
	for _, id := range sent {
		want[id] = []string{events.TypeMessageSent}
	}
	var suppressionEvents []string
	for i, env := range envs {
		if env.Type == events.TypeSuppressionCreated {
			suppressionEvents = append(suppressionEvents, env.Type)
			if i == 0 || envs[i-1].Type != events.TypeMessageFailed {
				t.Errorf("suppression.created at %d does not follow its message.failed: %v", i, testTypes(envs))
			}
		}
	}
	delete(byMessage, "")
	for id := range byMessage {
		if _, ok := want[id]; !ok && id != transient {
			delete(byMessage, id) // the suppression entry's own event
		}
	}
	if diff := cmp.Diff(want, byMessage); diff != "" {
		t.Errorf("message events (-want +got):\n%s", diff)
	}
	if len(suppressionEvents) != 1 {
		t.Errorf("suppression events = %v, want one (the bounce)", suppressionEvents)
	}
	err = e.store.Read(ctx, tenant, func(tx *store.Tx) error {
		s, err := tx.Suppression(ctx, toBounce, optin.ChannelSMS, false)
		if err == nil && (s.Reason != optin.ReasonBounce || s.Source != optin.SourceBounce) {
			err = fmt.Errorf("entry %+v, want a bounce", s)
		}
		if err == nil {
			if _, err2 := tx.Suppression(ctx, toRefused, optin.ChannelSMS, false); !errors.Is(err2, optin.ErrNotFound) {
				err = fmt.Errorf("the refused number's entry: %v, want none", err2)
			}
		}
		return err
	})
	if err != nil {
		t.Errorf("suppression list: %v", err)
	}

	// Not due yet: nothing is leased. After the retry delay the message is
	// sent by the next pass, its second attempt.
	if n, err := e.app.DispatchDue(ctx); err != nil || n != 0 {
		t.Fatalf("pass before the retry is due = %d, %v; want 0", n, err)
	}
	e.clock.Advance(time.Minute)
	if n, err := e.app.DispatchDue(ctx); err != nil || n != 1 {
		t.Fatalf("pass after the retry delay = %d, %v; want 1", n, err)
	}
	check(transient, optin.MessageSent, 2, "")
	if got := provider.callsOf(transient); got != 2 {
		t.Errorf("provider calls of the retried message = %d, want 2", got)
	}
}

func testTypes(envs []events.Envelope) []string {
	out := make([]string, len(envs))
	for i, env := range envs {
		out[i] = env.Type
	}
	return out
}

// TestDispatchWithoutSenderNumberFailsTheMessages: with no sender number
// (the tenant has none, the deployment no default) the tenant's messages
// fail no_sender_number without a provider call.
func TestDispatchWithoutSenderNumberFailsTheMessages(t *testing.T) {
	t.Parallel()
	provider := newFakeProvider(0, nil)
	e := newDispatchEnv(t, provider, "")
	const tenant = "tn_dispatch_nofrom"
	a, b := e.queue(t, tenant, "+14155550301"), e.queue(t, tenant, "+14155550302")
	if n, err := e.app.DispatchDue(context.Background()); err != nil || n != 2 {
		t.Fatalf("DispatchDue = %d, %v; want 2", n, err)
	}
	for _, id := range []string{a, b} {
		if m := e.message(t, tenant, id); m.Status != optin.MessageFailed || m.FailureReason != "no_sender_number" || m.Attempts != 0 {
			t.Errorf("message = %+v, want failed no_sender_number", m)
		}
		if provider.callsOf(id) != 0 {
			t.Errorf("message %s was handed to the provider", id)
		}
		if _, _, ok := e.queued(t, id); ok {
			t.Errorf("message %s is still queued", id)
		}
	}
}
