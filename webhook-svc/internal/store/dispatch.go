package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/libs/tenancy"
)

// Job is what sending one delivery needs, read in its tenant's scope.
type Job struct {
	DeliveryID   string
	TenantID     string
	EventID      string
	EventType    string
	Status       string
	AttemptCount int
	Body         []byte
	EventAt      time.Time
	Endpoint     EndpointRow
	// Live is false when the endpoint is inactive or deleted.
	Live bool
}

// jobsSQL reads deliveries by id: first the deliveries alone, one probe of
// the primary key per id (the lateral subquery with its LIMIT is not
// flattened into a join), then their endpoints and events. Read as
// "id = ANY($1)" or joined freely, the generic plan pgx's statement cache
// switches to read every delivery of the tenant by the tenant alone and
// compared each with the ids while the table had no statistics (a burst
// fills it from empty within seconds, before autovacuum analyzes it); that
// read grew with the tenant's whole delivery history
// (TestJobsProbeThePrimaryKey).
const jobsSQL = `WITH d AS MATERIALIZED (
		SELECT d.* FROM unnest($1::text[]) AS x(id)
		CROSS JOIN LATERAL (SELECT id, tenant_id, endpoint_id, event_id, event_type, status, attempt_count
		  FROM deliveries WHERE tenant_id = $2 AND id = x.id LIMIT 1) d)
	SELECT d.id, d.event_id, d.event_type, d.status, d.attempt_count, ev.body, ev.created_at,
		e.is_active AND e.deleted_at IS NULL,
		e.id, e.tenant_id, e.name, e.url, e.subscribed_events, e.is_active, e.consecutive_failures,
		e.last_succeeded_at, e.last_failed_at, e.disabled_at, e.created_at, e.updated_at,
		e.secret, e.previous_secret, e.previous_secret_until
		FROM d
		JOIN endpoints e ON e.tenant_id = d.tenant_id AND e.id = d.endpoint_id
		JOIN events ev ON ev.tenant_id = d.tenant_id AND ev.id = d.event_id`

// Jobs reads the deliveries ids of tenantID with their endpoint and event
// body, in one pipelined round trip scoped to the tenant (tenancy.Batch).
func (s *Store) Jobs(ctx context.Context, tenantID string, ids []string) (map[string]Job, error) {
	out := make(map[string]Job, len(ids))
	b := &pgx.Batch{}
	b.Queue(jobsSQL, ids, tenantID).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			j, err := scanJob(rows, tenantID)
			if err != nil {
				return err
			}
			out[j.DeliveryID] = j
		}
		return rows.Err()
	})
	if err := tenancy.Batch(ctx, s.pool, tenantID, b); err != nil {
		return nil, fmt.Errorf("reading deliveries to send: %w", err)
	}
	return out, nil
}

func scanJob(rows pgx.Rows, tenantID string) (Job, error) {
	j := Job{TenantID: tenantID}
	var body string
	e := &j.Endpoint
	err := rows.Scan(&j.DeliveryID, &j.EventID, &j.EventType, &j.Status, &j.AttemptCount, &body, &j.EventAt, &j.Live,
		&e.ID, &e.TenantID, &e.Name, &e.URL, &e.SubscribedEvents, &e.IsActive, &e.ConsecutiveFailures,
		&e.LastSucceededAt, &e.LastFailedAt, &e.DisabledAt, &e.CreatedAt, &e.UpdatedAt,
		&e.Secret, &e.PreviousSecret, &e.PreviousSecretUntil)
	if err != nil {
		return Job{}, fmt.Errorf("reading delivery to send: %w", err)
	}
	j.Body = []byte(body)
	return j, nil
}

// Outcome is the result of one attempt, decided by the dispatcher.
type Outcome struct {
	Claim Claim
	// Attempt is the number of this attempt (1-based); the delivery must
	// still have Attempt-1 attempts recorded, or nothing is written.
	Attempt        int
	Succeeded      bool
	Status         string // the delivery's status after the attempt
	ResponseStatus *int
	Error          *string
	AttemptedAt    time.Time
	Duration       time.Duration
	// NextAttemptAt is when the delivery is due again; nil when final.
	NextAttemptAt *time.Time
	EndpointID    string
}

// recordSQL writes an attempt in one statement: the delivery row, the
// attempt, the endpoint's health, and the queue entry (moved to the next
// attempt, or removed when final). It writes only when the delivery still
// has the expected number of attempts (so a stale claim records nothing).
// An attempt that was in flight when its delivery was cancelled (the
// endpoint was disabled or deleted meanwhile) is still recorded, as every
// attempt is visible; the delivery stays cancelled unless that attempt
// succeeded, which is then the truth. The endpoint's consecutive_failures
// and last_failed_at change on every failure; on success the row is
// written only when something changes or last_succeeded_at is more than a
// second old, so a busy endpoint's row does not serialize every successful
// delivery. At $12 failures in a row the endpoint is disabled; the
// statement reports it.
const recordSQL = `WITH d AS (
	UPDATE deliveries SET
	       status = CASE WHEN status <> 'cancelled' OR $8 THEN $3 ELSE status END,
	       next_attempt_at = CASE WHEN status <> 'cancelled' THEN $7::timestamptz END,
	       attempt_count = $4, response_status = $5, last_error = $6,
	       delivered_at = CASE WHEN $8 THEN $9 ELSE delivered_at END, updated_at = $9
	 WHERE id = $1 AND status IN ('pending', 'retrying', 'cancelled') AND attempt_count = $4 - 1
	RETURNING id, endpoint_id),
a AS (
	INSERT INTO attempts (tenant_id, delivery_id, number, succeeded, response_status, error, attempted_at, duration_ms)
	SELECT $2, id, $4, $8, $5, $6, $9, $10 FROM d),
q AS (
	UPDATE delivery_queue SET due_at = COALESCE($7, due_at), claim_token = NULL
	 WHERE delivery_id = $1 AND claim_token = $11 AND $7::timestamptz IS NOT NULL),
r AS (
	DELETE FROM delivery_queue WHERE delivery_id = $1 AND claim_token = $11 AND $7::timestamptz IS NULL),
e AS (
	UPDATE endpoints SET
	       consecutive_failures = CASE WHEN $8 THEN 0 ELSE consecutive_failures + 1 END,
	       last_succeeded_at = CASE WHEN $8 THEN $9 ELSE last_succeeded_at END,
	       last_failed_at = CASE WHEN $8 THEN last_failed_at ELSE $9 END,
	       is_active = is_active AND ($8 OR consecutive_failures + 1 < $12),
	       disabled_at = CASE WHEN NOT $8 AND is_active AND consecutive_failures + 1 >= $12 THEN $9 ELSE disabled_at END
	 WHERE id = (SELECT endpoint_id FROM d)
	   AND (NOT $8 OR consecutive_failures <> 0 OR last_succeeded_at IS NULL OR last_succeeded_at < $9 - interval '1 second')
	RETURNING NOT is_active AND disabled_at = $9 AS disabled)
SELECT (SELECT count(*) FROM d), COALESCE((SELECT disabled FROM e), false)`

// recordSucceededSQL writes a successful attempt: recordSQL for a success,
// without the queue move and the endpoint's health, which Record writes
// once per endpoint for all the successes of the batch (recordHealthySQL).
const recordSucceededSQL = `WITH d AS (
	UPDATE deliveries SET status = 'succeeded', next_attempt_at = NULL, attempt_count = $3,
	       response_status = $4, last_error = NULL, delivered_at = $5, updated_at = $5
	 WHERE id = $1 AND status IN ('pending', 'retrying', 'cancelled') AND attempt_count = $3 - 1
	RETURNING id),
a AS (
	INSERT INTO attempts (tenant_id, delivery_id, number, succeeded, response_status, error, attempted_at, duration_ms)
	SELECT $2, id, $3, true, $4, NULL, $5, $6 FROM d),
r AS (
	DELETE FROM delivery_queue WHERE delivery_id = $1 AND claim_token = $7)
SELECT count(*) FROM d`

// recordHealthySQL is the endpoint's health after successful attempts (the
// latest at $2): no failures in a row, last_succeeded_at. A busy endpoint's
// row is written at most once a second, so successful deliveries do not
// serialize on it.
const recordHealthySQL = `UPDATE endpoints SET consecutive_failures = 0, last_succeeded_at = $2
	 WHERE id = $1 AND (consecutive_failures <> 0 OR last_succeeded_at IS NULL OR last_succeeded_at < $2::timestamptz - interval '1 second')`

// Recorded is what became of one recorded outcome: Written is false when
// the attempt had been recorded meanwhile by another claim; Disabled is true
// when it disabled the endpoint (whose other open deliveries are then
// cancelled).
type Recorded struct {
	Written, Disabled bool
}

// Record stores the outcomes of attempts of tenantID's deliveries, one
// statement each, in one pipelined round trip scoped to the tenant: one
// commit for all of them. Successes go first (recordSucceededSQL, then each
// endpoint's health once, recordHealthySQL), then failures (recordSQL): the
// attempts of a batch ran concurrently, and counting a batch's failures
// after its successes keeps them in consecutive_failures. It locks its endpoints (KEY SHARE, in id order)
// before any delivery, and the statements go in endpoint order (stable), so
// concurrent calls and API writes lock rows in the same order. The result has one
// entry per outcome, in the order given. When an outcome disabled its
// endpoint, the endpoint's other open deliveries are cancelled afterwards.
// When a statement fails, nothing is written and the error is returned.
func (s *Store) Record(ctx context.Context, tenantID string, outcomes []Outcome, disableAt int) ([]Recorded, error) {
	order := make([]int, len(outcomes))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return strings.Compare(outcomes[a].EndpointID, outcomes[b].EndpointID)
	})
	out := make([]Recorded, len(outcomes))
	b := &pgx.Batch{}
	// The endpoints first, before any delivery: an API write holds its
	// endpoint FOR UPDATE and then cancels the endpoint's deliveries, so a
	// delivery locked here before its endpoint would deadlock with it. KEY
	// SHARE lets concurrent Records proceed together.
	endpoints := make([]string, 0, len(order))
	for _, i := range order {
		if id := outcomes[i].EndpointID; len(endpoints) == 0 || endpoints[len(endpoints)-1] != id {
			endpoints = append(endpoints, id)
		}
	}
	b.Queue(`SELECT 1 FROM endpoints WHERE id = ANY($1) ORDER BY id FOR KEY SHARE`, endpoints)
	queueSucceeded(b, tenantID, outcomes, order, out)
	for _, i := range order {
		o := outcomes[i]
		if o.Succeeded {
			continue
		}
		b.Queue(recordSQL, o.Claim.DeliveryID, tenantID, o.Status, o.Attempt, o.ResponseStatus,
			o.Error, o.NextAttemptAt, o.Succeeded, o.AttemptedAt, int(o.Duration.Milliseconds()), o.Claim.Token,
			disableAt).QueryRow(func(row pgx.Row) error {
			var n int
			err := row.Scan(&n, &out[i].Disabled)
			out[i].Written = n == 1
			return err
		})
	}
	if err := tenancy.Batch(ctx, s.pool, tenantID, b); err != nil {
		return nil, fmt.Errorf("recording %d attempts: %w", len(outcomes), err)
	}
	for i, r := range out {
		if !r.Disabled {
			continue
		}
		o := outcomes[i]
		err := tenancy.Do(ctx, s.pool, tenantID, func(tx pgx.Tx) error {
			_, err := cancelOpen(ctx, tx, o.EndpointID, o.AttemptedAt)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// queueSucceeded adds the successes among outcomes (in order) to b and,
// after them, the health of each endpoint they reached.
func queueSucceeded(b *pgx.Batch, tenantID string, outcomes []Outcome, order []int, out []Recorded) {
	latest := map[string]time.Time{}
	var endpoints []string
	for _, i := range order {
		o := outcomes[i]
		if !o.Succeeded {
			continue
		}
		b.Queue(recordSucceededSQL, o.Claim.DeliveryID, tenantID, o.Attempt, o.ResponseStatus, o.AttemptedAt,
			int(o.Duration.Milliseconds()), o.Claim.Token).QueryRow(func(row pgx.Row) error {
			var n int
			err := row.Scan(&n)
			out[i].Written = n == 1
			return err
		})
		if at, seen := latest[o.EndpointID]; !seen || o.AttemptedAt.After(at) {
			if !seen {
				endpoints = append(endpoints, o.EndpointID)
			}
			latest[o.EndpointID] = o.AttemptedAt
		}
	}
	for _, id := range endpoints {
		b.Queue(recordHealthySQL, id, latest[id])
	}
}

// Defer moves a claimed delivery to until without an attempt (the
// endpoint's circuit breaker is open).
func (s *Store) Defer(ctx context.Context, c Claim, until, now time.Time) error {
	b := &pgx.Batch{}
	b.Queue(`WITH d AS (
			UPDATE deliveries SET next_attempt_at = $2, updated_at = $3
			 WHERE id = $1 AND status IN ('pending', 'retrying'))
		UPDATE delivery_queue SET due_at = $2, claim_token = NULL WHERE delivery_id = $1 AND claim_token = $4`,
		c.DeliveryID, until, now, c.Token)
	if err := tenancy.Batch(ctx, s.pool, c.TenantID, b); err != nil {
		return fmt.Errorf("deferring delivery %s: %w", c.DeliveryID, err)
	}
	return nil
}

// Cancel cancels a claimed open delivery whose endpoint is no longer live
// and removes it from the queue.
func (s *Store) Cancel(ctx context.Context, c Claim, now time.Time) error {
	b := &pgx.Batch{}
	b.Queue(`WITH d AS (
			UPDATE deliveries SET status = 'cancelled', next_attempt_at = NULL, updated_at = $2
			 WHERE id = $1 AND status IN ('pending', 'retrying'))
		DELETE FROM delivery_queue WHERE delivery_id = $1 AND claim_token = $3`, c.DeliveryID, now, c.Token)
	if err := tenancy.Batch(ctx, s.pool, c.TenantID, b); err != nil {
		return fmt.Errorf("cancelling delivery %s: %w", c.DeliveryID, err)
	}
	return nil
}
