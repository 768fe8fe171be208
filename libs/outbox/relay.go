package outbox

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/segmentio/kafka-go"

	"github.com/paylane/paylane/libs/obs"
)

// relayLockKey is the transaction advisory lock (an arbitrary constant) that
// lets one relay per database publish at a time.
const relayLockKey int64 = 0x6f7574626f78 // "outbox"

// Relay publishes committed outbox rows to Kafka and deletes them once the
// broker has them. Run it in every replica of a service: replicas take
// turns, so events leave in the order of their rows.
// The store of the replica calls Wake after committing events (see
// tenancy.OnCommit); events committed by other processes are found by the
// poll.
type Relay struct {
	// PollInterval is how often the relay looks for rows without a Wake
	// (default 100 ms).
	PollInterval time.Duration
	// BatchSize is the most rows claimed and published at once (default 100).
	BatchSize int

	pool   *pgxpool.Pool
	log    *slog.Logger
	writer *kafka.Writer
	wake   chan struct{}
}

// NewRelay returns a relay that reads the outbox through pool and writes to
// brokers with a kafka-go Writer: message key = tenant id (murmur2 partitioning,
// as Java clients do), value = the envelope JSON, RequiredAcks all.
func NewRelay(pool *pgxpool.Pool, brokers []string, log *slog.Logger) *Relay {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("component", "outbox-relay")
	return &Relay{
		PollInterval: 100 * time.Millisecond,
		BatchSize:    100,
		pool:         pool,
		log:          log,
		wake:         make(chan struct{}, 1),
		writer: &kafka.Writer{
			Addr:                   kafka.TCP(brokers...),
			Balancer:               &kafka.Murmur2Balancer{},
			RequiredAcks:           kafka.RequireAll,
			BatchSize:              1000,
			BatchTimeout:           time.Millisecond, // the whole batch is handed over at once
			AllowAutoTopicCreation: true,
			ErrorLogger: kafka.LoggerFunc(func(msg string, args ...any) {
				log.Warn("kafka writer: " + fmt.Sprintf(msg, args...))
			}),
		},
	}
}

// Wake makes a running relay look for rows now instead of at its next poll;
// it never blocks, and several wakes before the relay looks count as one.
// Call it after a transaction that added events commits (never before: the
// relay would not see them yet). A nil *Relay ignores it, so a store can
// call it in a deployment that runs no relay.
func (r *Relay) Wake() {
	if r == nil {
		return
	}
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Run publishes until ctx is done, then closes the writer and returns nil. It
// wakes on Wake and every PollInterval; database or Kafka errors are logged
// and retried with backoff. Call Run once per Relay. When ctx carries the
// service's obs.Telemetry, the outbox backlog series are registered on its
// registry (NewBacklogCollector).
func (r *Relay) Run(ctx context.Context) error {
	defer r.writer.Close()
	r.applyDefaults()
	if tel := obs.TelemetryFrom(ctx); tel.Registry != nil {
		obs.Register(ctx, NewBacklogCollector(r.pool, tel.Service))
	}

	poll := time.NewTicker(r.PollInterval)
	defer poll.Stop()
	backoff := r.PollInterval
	check := true // false when rows are known to wait (Wake, a full batch)
	for {
		n, err := r.publishBatch(ctx, check)
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil:
			r.log.Warn("publishing outbox rows failed; retrying", "retry_in", backoff, "err", err)
			if !sleep(ctx, backoff) {
				return nil
			}
			backoff = min(2*backoff, 10*time.Second)
			check = true
			continue
		}
		backoff = r.PollInterval
		if n == r.BatchSize {
			check = false
			continue // more rows are waiting
		}
		select {
		case <-ctx.Done():
			return nil
		case <-r.wake:
			check = false
		case <-poll.C:
			check = true
		}
	}
}

// applyDefaults replaces unset or invalid settings by NewRelay's defaults.
func (r *Relay) applyDefaults() {
	if r.PollInterval <= 0 {
		r.PollInterval = 100 * time.Millisecond
	}
	if r.BatchSize <= 0 {
		r.BatchSize = 100
	}
}

// claimSQL claims the oldest rows (every row waits to be published) once
// the transaction holds the relays' advisory lock: the lock is an InitPlan,
// taken before the scan, and without it the statement returns no rows. FOR
// UPDATE SKIP LOCKED never waits on rows another session holds.
const claimSQL = `SELECT id, topic, key, payload::text, traceparent FROM outbox
	WHERE (SELECT pg_try_advisory_xact_lock($1))
	ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED`

// publishBatch publishes the oldest rows in one transaction and
// returns how many. The transaction advisory lock keeps a second relay out
// until this one commits, so rows leave in id order. With check, a cheap
// query first makes sure there are rows (the poll); a Wake skips it.
func (r *Relay) publishBatch(ctx context.Context, check bool) (int, error) {
	if check {
		var pending bool
		if err := r.pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM outbox)").Scan(&pending); err != nil {
			return 0, fmt.Errorf("checking outbox: %w", err)
		}
		if !pending {
			return 0, nil
		}
	}
	conn, err := r.pool.Acquire(ctx)
	if err != nil {
		return 0, fmt.Errorf("acquiring connection: %w", err)
	}
	defer conn.Release()
	n, err := r.publishOn(ctx, conn.Conn())
	if err != nil && conn.Conn().PgConn().TxStatus() != 'I' {
		// End the transaction so the connection goes back to the pool clean.
		if _, rbErr := conn.Exec(ctx, "ROLLBACK"); rbErr != nil {
			_ = conn.Conn().Close(ctx) // broken: the pool drops it
		}
	}
	return n, err
}

// publishOn is publishBatch on conn in two round trips: BEGIN with the
// claim, then, once Kafka has the messages, the DELETE with COMMIT. A
// published row is deleted rather than marked: marking rewrote the whole
// row and its index entries for every event (docs/benchmarks.md finding 6).
func (r *Relay) publishOn(ctx context.Context, conn *pgx.Conn) (int, error) {
	var (
		ids  []int64
		msgs []kafka.Message
	)
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	b.Queue(claimSQL, relayLockKey, r.BatchSize).Query(func(rows pgx.Rows) error {
		var err error
		ids, msgs, err = scanClaimed(rows)
		return err
	})
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		return 0, fmt.Errorf("claiming outbox rows: %w", err)
	}
	if len(msgs) == 0 { // nothing, or another relay is publishing
		_, err := conn.Exec(ctx, "COMMIT")
		return 0, err
	}
	if err := r.writer.WriteMessages(ctx, msgs...); err != nil {
		return 0, fmt.Errorf("writing to kafka: %w", err)
	}
	done := &pgx.Batch{}
	done.Queue("DELETE FROM outbox WHERE id = ANY($1)", ids)
	done.Queue("COMMIT").Exec(func(tag pgconn.CommandTag) error {
		if tag.String() == "ROLLBACK" {
			return pgx.ErrTxCommitRollback
		}
		return nil
	})
	if err := conn.SendBatch(ctx, done).Close(); err != nil {
		return 0, fmt.Errorf("deleting published rows: %w", err)
	}
	return len(msgs), nil
}

// scanClaimed reads the claimed rows as Kafka messages.
func scanClaimed(rows pgx.Rows) ([]int64, []kafka.Message, error) {
	var ids []int64
	var msgs []kafka.Message
	for rows.Next() {
		var id int64
		var topic, key, payload, traceParent string
		if err := rows.Scan(&id, &topic, &key, &payload, &traceParent); err != nil {
			return nil, nil, fmt.Errorf("reading outbox row: %w", err)
		}
		ids = append(ids, id)
		m := kafka.Message{Topic: topic, Key: []byte(key), Value: []byte(payload)}
		if traceParent != "" {
			m.Headers = []kafka.Header{{Key: obs.TraceParentHeader, Value: []byte(traceParent)}}
		}
		msgs = append(msgs, m)
	}
	return ids, msgs, rows.Err()
}

// sleep waits d, or less when ctx ends first (then it returns false).
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
