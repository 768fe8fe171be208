package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/batch-svc/internal/batch"
)

// Claim is a batch a worker holds: the batch, its tenant and the token
// that proves the hold (the lease).
type Claim struct {
	BatchID  string
	TenantID string
	Token    string
}

// ClaimNext takes a batch whose lease is free (queued, or processing with
// a lease its worker stopped renewing) for the worker holding token until
// leaseUntil, skipping the batches of the tenants in skip. Tenants holding
// the fewest leases (batches being processed, on any replica) go first,
// then the oldest free batch: a tenant with batches in processing does
// not get a worker before a tenant waiting with none. FOR UPDATE SKIP
// LOCKED lets concurrent workers claim different batches. The queue holds
// no customer data and has no row-level security: this is the only
// statement that reads across tenants. False when no batch is free.
func (s *Store) ClaimNext(ctx context.Context, now, leaseUntil time.Time, token string, skip []string) (Claim, bool, error) {
	c := Claim{Token: token}
	if skip == nil {
		skip = []string{}
	}
	err := s.pool.QueryRow(ctx, `WITH held AS (
			SELECT tenant_id, count(*) AS n FROM batch_queue
			 WHERE lease_until > $1 AND lease_token IS NOT NULL GROUP BY tenant_id),
		free AS (
			SELECT q.batch_id FROM batch_queue q LEFT JOIN held h ON h.tenant_id = q.tenant_id
			 WHERE q.lease_until <= $1 AND NOT (q.tenant_id = ANY($4::text[]))
			 ORDER BY coalesce(h.n, 0), q.lease_until, q.batch_id LIMIT 1 FOR UPDATE OF q SKIP LOCKED)
		UPDATE batch_queue q SET lease_until = $2, lease_token = $3
		  FROM free WHERE q.batch_id = free.batch_id
		RETURNING q.batch_id, q.tenant_id`, now, leaseUntil, token, skip).Scan(&c.BatchID, &c.TenantID)
	if errors.Is(err, pgx.ErrNoRows) {
		return Claim{}, false, nil
	}
	if err != nil {
		return Claim{}, false, fmt.Errorf("claiming a batch: %w", err)
	}
	return c, true, nil
}

// Renew extends the worker's lease on c until leaseUntil; ErrLeaseLost
// when another worker took the batch over (or it left the queue).
func (s *Store) Renew(ctx context.Context, c Claim, leaseUntil time.Time) error {
	tag, err := s.pool.Exec(ctx, `UPDATE batch_queue SET lease_until = $3
		 WHERE batch_id = $1 AND lease_token = $2`, c.BatchID, c.Token, leaseUntil)
	if err != nil {
		return fmt.Errorf("renewing the lease of batch %s: %w", c.BatchID, err)
	}
	if tag.RowsAffected() == 0 {
		return batch.ErrLeaseLost
	}
	return nil
}

// Release gives the batch back to the queue at once (a worker stopping
// between chunks), so another worker resumes it without waiting for the
// lease to expire.
func (s *Store) Release(ctx context.Context, c Claim, now time.Time) error {
	_, err := s.pool.Exec(ctx, `UPDATE batch_queue SET lease_until = $3, lease_token = NULL
		 WHERE batch_id = $1 AND lease_token = $2`, c.BatchID, c.Token, now)
	if err != nil {
		return fmt.Errorf("releasing batch %s: %w", c.BatchID, err)
	}
	return nil
}

// HoldLease checks, inside the tenant's transaction, that the worker still
// holds c, and extends the lease: a chunk's results are recorded only by
// the worker that holds the batch. ErrLeaseLost otherwise.
func (t *Tx) HoldLease(ctx context.Context, c Claim, leaseUntil time.Time) error {
	tag, err := t.tx.Exec(ctx, `UPDATE batch_queue SET lease_until = $3
		 WHERE batch_id = $1 AND lease_token = $2`, c.BatchID, c.Token, leaseUntil)
	if err != nil {
		return fmt.Errorf("holding the lease of batch %s: %w", c.BatchID, err)
	}
	if tag.RowsAffected() == 0 {
		return batch.ErrLeaseLost
	}
	return nil
}

// Unqueue removes the finished batch from the queue (c must hold it).
func (t *Tx) Unqueue(ctx context.Context, c Claim) error {
	tag, err := t.tx.Exec(ctx, `DELETE FROM batch_queue WHERE batch_id = $1 AND lease_token = $2`, c.BatchID, c.Token)
	if err != nil {
		return fmt.Errorf("unqueueing batch %s: %w", c.BatchID, err)
	}
	if tag.RowsAffected() == 0 {
		return batch.ErrLeaseLost
	}
	return nil
}
