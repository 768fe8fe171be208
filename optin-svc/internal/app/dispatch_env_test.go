package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

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
	clock *testkit.Clock
}

func newDispatchEnv(t *testing.T, provider sms.Provider, from string) *dispatchEnv {
	t.Helper()
	pg := testkit.PG(t)
	dsn := pg.Database(t, "optin", migrations.Sets()...)
	e := &dispatchEnv{store: store.New(pg.Pool(t, dsn)), owner: pg.Pool(t, pg.OwnerDSN(t, dsn)),
		clock: testkit.NewClock(time.Now().UTC().Truncate(time.Microsecond))}
	e.app = app.New(app.Deps{Store: e.store, Provider: provider, Now: e.clock.Now,
		Sending: app.Sending{DefaultFrom: from, MaxAttempts: 3, RetryBase: time.Minute, PublicBaseURL: "https://pay.example.test"}})
	return e
}

// queue stores a queued message of the tenant to the number, due now, and
// returns its id.
func (e *dispatchEnv) queue(t *testing.T, tenant, to string) string {
	t.Helper()
	now := e.clock.Now()
	m := optin.Message{ID: ids.New(), NotificationID: ids.New(), Kind: "notification", To: to, Body: "Your invoice is due.",
		Status: optin.MessageQueued, Provider: "fake", CreatedAt: now, UpdatedAt: now}
	err := e.store.Write(context.Background(), idempotency.Tx{}, tenant, func(tx *store.Tx) error {
		if _, err := tx.InsertMessages(context.Background(), []optin.Message{m}); err != nil {
			return err
		}
		return tx.EnqueueMessages(context.Background(), []store.Due{{MessageID: m.ID, At: now}})
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
