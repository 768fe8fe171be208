package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/optin-svc/internal/app"
	"github.com/paylane/paylane/optin-svc/internal/optin"
	"github.com/paylane/paylane/optin-svc/internal/sms"
	"github.com/paylane/paylane/optin-svc/internal/store"
	"github.com/paylane/paylane/optin-svc/migrations"
)

const dispatchFrom = "+15005550006"

// fakeProvider answers provider calls with answer (the sink's "delivered"
// when nil) and counts the calls of each message id. With hold > 0 every
// call waits until hold calls are in flight at once (at most 10 s, after
// which all calls go on and the test's check of maxInFlight fails).
type fakeProvider struct {
	answer func(out sms.Outgoing, call int) (sms.Result, error)
	hold   int

	mu          sync.Mutex
	calls       map[string]int
	inFlight    int
	maxInFlight int
	held        bool
	reached     chan struct{}
}

func newFakeProvider(hold int, answer func(sms.Outgoing, int) (sms.Result, error)) *fakeProvider {
	return &fakeProvider{answer: answer, hold: hold, calls: map[string]int{}, reached: make(chan struct{})}
}

func (p *fakeProvider) Name() string { return "fake" }

func (p *fakeProvider) Send(ctx context.Context, out sms.Outgoing) (sms.Result, error) {
	p.mu.Lock()
	p.calls[out.MessageID]++
	call := p.calls[out.MessageID]
	p.inFlight++
	p.maxInFlight = max(p.maxInFlight, p.inFlight)
	if p.hold > 0 && p.inFlight == p.hold && !p.held {
		p.held = true
		close(p.reached)
	}
	p.mu.Unlock()
	if p.hold > 0 {
		select {
		case <-p.reached:
		case <-ctx.Done():
		case <-time.After(10 * time.Second): // never reached: let every call go
			p.mu.Lock()
			if !p.held {
				p.held = true
				close(p.reached)
			}
			p.mu.Unlock()
		}
	}
	p.mu.Lock()
	p.inFlight--
	p.mu.Unlock()
	if p.answer == nil {
		return sms.Result{ProviderMessageID: "FK" + out.MessageID, Delivered: true}, nil
	}
	return p.answer(out, call)
}

func (p *fakeProvider) callsOf(id string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls[id]
}

// dispatchEnv is an App on a fresh database with the provider and a clock
// the test moves.
type dispatchEnv struct {
	app   *app.App
	store *store.Store
	owner *pgxpool.Pool

	mu  sync.Mutex
	now time.Time
}

func newDispatchEnv(t *testing.T, provider sms.Provider, from string) *dispatchEnv {
	t.Helper()
	pg := testkit.PG(t)
	dsn := pg.Database(t, "optin", migrations.Sets()...)
	e := &dispatchEnv{store: store.New(pg.Pool(t, dsn)), owner: pg.Pool(t, pg.OwnerDSN(t, dsn)),
		now: time.Now().UTC().Truncate(time.Microsecond)}
	e.app = app.New(app.Deps{Store: e.store, Provider: provider, Now: e.clock,
		Sending: app.Sending{DefaultFrom: from, MaxAttempts: 3, RetryBase: time.Minute, PublicBaseURL: "https://pay.example.test"}})
	return e
}

func (e *dispatchEnv) clock() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.now
}

func (e *dispatchEnv) advance(d time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.now = e.now.Add(d)
}

// queue stores a queued message of the tenant to the number, due now, and
// returns its id.
func (e *dispatchEnv) queue(t *testing.T, tenant, to string) string {
	t.Helper()
	now := e.clock()
	m := optin.Message{ID: ids.New(), NotificationID: ids.New(), Kind: "notification", To: to, Body: "Your invoice is due.",
		Status: optin.MessageQueued, Provider: "fake", CreatedAt: now, UpdatedAt: now}
	err := e.store.Write(context.Background(), idempotency.Tx{}, tenant, func(tx *store.Tx) error {
		if _, err := tx.InsertMessage(context.Background(), m); err != nil {
			return err
		}
		return tx.Enqueue(context.Background(), m.ID, now)
	})
	if err != nil {
		t.Fatalf("queueing a message: %v", err)
	}
	return m.ID
}

// message reads a message in its tenant's scope.
func (e *dispatchEnv) message(t *testing.T, tenant, id string) optin.Message {
	t.Helper()
	var m optin.Message
	err := e.store.Read(context.Background(), tenant, func(tx *store.Tx) error {
		var err error
		m, err = tx.Message(context.Background(), id, false)
		return err
	})
	if err != nil {
		t.Fatalf("reading message %s of %s: %v", id, tenant, err)
	}
	return m
}

// queued returns the message's queue entry (due_at, leased) or ok false.
func (e *dispatchEnv) queued(t *testing.T, id string) (due time.Time, leased, ok bool) {
	t.Helper()
	var until *time.Time
	err := e.owner.QueryRow(context.Background(), `SELECT due_at, leased_until FROM send_queue WHERE message_id = $1`, id).Scan(&due, &until)
	if errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, false, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return due.UTC(), until != nil, true
}

// events returns the event types the tenant's outbox holds for each
// message id, in order, and the tenants of those events.
func (e *dispatchEnv) events(t *testing.T, tenant string) (map[string][]string, []events.Envelope) {
	t.Helper()
	rows, err := e.owner.Query(context.Background(), `SELECT payload FROM outbox WHERE tenant_id = $1 ORDER BY id`, tenant)
	if err != nil {
		t.Fatal(err)
	}
	envs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (events.Envelope, error) {
		var raw []byte
		var env events.Envelope
		if err := r.Scan(&raw); err != nil {
			return env, err
		}
		return env, json.Unmarshal(raw, &env)
	})
	if err != nil {
		t.Fatal(err)
	}
	byMessage := map[string][]string{}
	for _, env := range envs {
		var data struct {
			ID string `json:"id"`
		}
		_ = env.Decode(&data)
		byMessage[data.ID] = append(byMessage[data.ID], env.Type)
	}
	return byMessage, envs
}

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
			Channel: optin.ChannelSMS, Source: optin.SourceAPI, CreatedAt: e.clock()})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}

	if n, err := e.app.DispatchDue(ctx); err != nil || n != 7 {
		t.Fatalf("DispatchDue = %d, %v; want 7 leased", n, err)
	}
	now := e.clock()
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
	e.advance(time.Minute)
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
	now := e.clock()
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
