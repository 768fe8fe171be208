package outbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/segmentio/kafka-go"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/outbox"
	"github.com/paylane/paylane/libs/tenancy"
	"github.com/paylane/paylane/libs/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func newPool(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pg := testkit.PG(t)
	return pg.Pool(t, pg.Database(t, "outbox", outbox.Migrations()))
}

// startRelay runs a relay until the test ends.
func startRelay(t *testing.T, pool *pgxpool.Pool, brokers []string, configure func(*outbox.Relay)) {
	t.Helper()
	r := outbox.NewRelay(pool, brokers, nil)
	if configure != nil {
		configure(r)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Relay.Run: %v", err)
		}
	})
}

func addEvent(ctx context.Context, pool *pgxpool.Pool, typ, tenant string, commit bool) (events.Envelope, error) {
	env, err := events.New(typ, tenant, "req", map[string]string{"type": typ})
	if err != nil {
		return env, err
	}
	rollback := errors.New("rolled back on purpose")
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := outbox.Add(ctx, tx, "", env); err != nil {
			return err
		}
		if !commit {
			return rollback
		}
		return nil
	})
	if errors.Is(err, rollback) {
		err = nil
	}
	return env, err
}

// readUntil reads topic as a new consumer group until it has seen the event
// with id last, and returns every message read, in order.
func readUntil(t *testing.T, brokers []string, topic, last string) []kafka.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r := kafka.NewReader(kafka.ReaderConfig{
		Brokers: brokers, GroupID: "test-" + last, GroupTopics: []string{topic},
		StartOffset: kafka.FirstOffset, MaxWait: 200 * time.Millisecond,
	})
	defer r.Close()
	var got []kafka.Message
	for {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			t.Fatalf("reading %s: %v after %d messages", topic, err, len(got))
		}
		if err := r.CommitMessages(ctx, m); err != nil {
			t.Fatalf("commit: %v", err)
		}
		got = append(got, m)
		var env events.Envelope
		if err := json.Unmarshal(m.Value, &env); err != nil {
			t.Fatalf("message is no envelope: %s", m.Value)
		}
		if env.ID == last {
			return got
		}
	}
}

func TestCommittedEventIsPublished(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, brokers := newPool(t), testkit.Broker(t)
	startRelay(t, pool, brokers, nil)

	env, err := addEvent(ctx, pool, "contact.created", "TENANT1", true)
	if err != nil {
		t.Fatal(err)
	}
	msgs := readUntil(t, brokers, events.TopicContacts, env.ID)
	if len(msgs) != 1 {
		t.Fatalf("got %d messages, want 1", len(msgs))
	}
	if string(msgs[0].Key) != "TENANT1" {
		t.Errorf("key = %q, want the tenant id", msgs[0].Key)
	}
	var got events.Envelope
	if err := json.Unmarshal(msgs[0].Value, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(env, got, cmp.Comparer(jsonEqual)); diff != "" {
		t.Errorf("published envelope (-want +got):\n%s", diff)
	}
	waitPublished(t, pool)
}

func TestRolledBackEventIsNotPublished(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, brokers := newPool(t), testkit.Broker(t)
	startRelay(t, pool, brokers, nil)

	lost, err := addEvent(ctx, pool, "contact.deleted", "T1", false)
	if err != nil {
		t.Fatal(err)
	}
	marker, err := addEvent(ctx, pool, "contact.created", "T1", true)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range readUntil(t, brokers, events.TopicContacts, marker.ID) {
		var env events.Envelope
		_ = json.Unmarshal(m.Value, &env)
		if env.ID == lost.ID {
			t.Fatalf("the rolled-back event %s was published", lost.ID)
		}
	}
}

func TestTwoRelaysPublishEachRowOnceInOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, brokers := newPool(t), testkit.Broker(t)
	const n = 60
	var want []string
	for i := range n {
		env, err := addEvent(ctx, pool, fmt.Sprintf("receivable.e%02d", i), "T1", true)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, env.ID)
	}
	small := func(r *outbox.Relay) { r.BatchSize = 7 }
	startRelay(t, pool, brokers, small)
	startRelay(t, pool, brokers, small)

	var got []string
	for _, m := range readUntil(t, brokers, events.TopicTransactions, want[n-1]) {
		var env events.Envelope
		if err := json.Unmarshal(m.Value, &env); err != nil {
			t.Fatal(err)
		}
		got = append(got, env.ID)
	}
	waitPublished(t, pool)
	// Nothing was published twice: the next event follows the 60 directly.
	marker, err := addEvent(ctx, pool, "receivable.marker", "T1", true)
	if err != nil {
		t.Fatal(err)
	}
	all := readUntil(t, brokers, events.TopicTransactions, marker.ID)
	if len(all) != n+1 {
		t.Errorf("topic holds %d messages, want %d", len(all), n+1)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("published (-want +got):\n%s", diff)
	}
}

// A row leaves the outbox only once the broker has its event: a relay that
// cannot reach Kafka keeps it, and the next relay publishes and deletes it.
func TestRelayDeletesARowOnlyOnceKafkaHasIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, brokers := newPool(t), testkit.Broker(t)
	env, err := addEvent(ctx, pool, "contact.created", "T1", true)
	if err != nil {
		t.Fatal(err)
	}

	away := outbox.NewRelay(pool, []string{"127.0.0.1:1"}, nil) // nothing listens there
	away.PollInterval = 10 * time.Millisecond
	awayCtx, stopAway := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- away.Run(awayCtx) }()
	time.Sleep(500 * time.Millisecond)
	stopAway()
	if err := <-done; err != nil {
		t.Fatalf("Relay.Run: %v", err)
	}
	var left []string
	rows, err := pool.Query(ctx, "SELECT event_id FROM outbox")
	if err != nil {
		t.Fatal(err)
	}
	if left, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(left, []string{env.ID}) {
		t.Fatalf("outbox after failed writes = %v, want the event kept", left)
	}

	startRelay(t, pool, brokers, nil)
	if msgs := readUntil(t, brokers, events.TopicContacts, env.ID); len(msgs) != 1 {
		t.Errorf("published %d messages, want 1", len(msgs))
	}
	waitPublished(t, pool)
}

func TestAddNeedsATopicAndAnID(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	unknown, err := events.New("mystery.happened", "T1", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		topic string
		env   events.Envelope
		ok    bool
	}{
		{"type of no domain", "", unknown, false},
		{"type of no domain, explicit topic", "paylane.misc.v1", unknown, true},
		{"no id", "", events.Envelope{Type: "contact.created"}, false},
	}
	for _, tt := range tests {
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return outbox.Add(ctx, tx, tt.topic, tt.env) })
		if (err == nil) != tt.ok {
			t.Errorf("%s: err = %v", tt.name, err)
		}
	}
}

// waitPublished waits until the relay has published and deleted every row.
func waitPublished(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var pending int
		if err := pool.QueryRow(context.Background(), "SELECT count(*) FROM outbox").Scan(&pending); err != nil {
			t.Fatal(err)
		}
		if pending == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d rows still unpublished", pending)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && cmp.Equal(x, y)
}

// addPipelined commits env in a tenancy.Pipelined transaction that wakes
// relay on commit, as a service's store does.
func addPipelined(ctx context.Context, pool *pgxpool.Pool, relay *outbox.Relay, typ string) (events.Envelope, error) {
	env, err := events.New(typ, "T1", "req", map[string]string{"type": typ})
	if err != nil {
		return env, err
	}
	err = tenancy.Pipelined(ctx, pool, "T1", func(tx pgx.Tx) error {
		tenancy.OnCommit(tx, relay.Wake)
		return outbox.Add(ctx, tx, "", env)
	})
	return env, err
}

func TestWakePublishesWithoutThePoll(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, brokers := newPool(t), testkit.Broker(t)
	var relay *outbox.Relay
	startRelay(t, pool, brokers, func(r *outbox.Relay) { r.PollInterval, relay = time.Hour, r })

	// The first may leave with the relay's start; the second finds the relay
	// waiting, with an hour to its next poll: only Wake sends it.
	for _, typ := range []string{"contact.created", "contact.updated"} {
		env, err := addPipelined(ctx, pool, relay, typ)
		if err != nil {
			t.Fatal(err)
		}
		readUntil(t, brokers, events.TopicContacts, env.ID)
		waitPublished(t, pool)
	}
}

func TestPollPublishesEventsCommittedWithoutWake(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, brokers := newPool(t), testkit.Broker(t)
	startRelay(t, pool, brokers, func(r *outbox.Relay) { r.PollInterval = 10 * time.Millisecond })
	for _, typ := range []string{"contact.created", "contact.updated"} {
		// Another replica's commit: nobody wakes this relay.
		env, err := addPipelined(ctx, pool, nil, typ)
		if err != nil {
			t.Fatal(err)
		}
		readUntil(t, brokers, events.TopicContacts, env.ID)
		waitPublished(t, pool)
	}
}

func TestCommitsSendNoNotification(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	// NOTIFY serialised every commit that wrote events; the outbox has no
	// trigger left.
	var triggers int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_trigger WHERE tgrelid = 'outbox'::regclass AND NOT tgisinternal`).Scan(&triggers); err != nil {
		t.Fatal(err)
	}
	if triggers != 0 {
		t.Fatalf("outbox has %d triggers, want none", triggers)
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "LISTEN outbox"); err != nil {
		t.Fatal(err)
	}
	defer func() { _, _ = conn.Exec(ctx, "UNLISTEN *") }()
	if _, err := addEvent(ctx, pool, "contact.created", "T1", true); err != nil {
		t.Fatal(err)
	}
	// A notification sent at that commit would be queued by now; the ping
	// delivers it if so.
	if err := conn.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	waitCtx, cancel := context.WithCancel(ctx)
	cancel()
	if n, err := conn.Conn().WaitForNotification(waitCtx); err == nil {
		t.Fatalf("commit sent notification %+v", n)
	}
}
