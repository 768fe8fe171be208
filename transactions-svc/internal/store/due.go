package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// Kind is a kind of scheduled work.
type Kind string

// Kinds of scheduled work.
const (
	KindSend        Kind = "send"         // scheduled -> pending at send_at
	KindLinkExpiry  Kind = "link_expiry"  // the link's TTL passes
	KindDraftExpiry Kind = "draft_expiry" // a draft not confirmed in 24 h
	KindFollowUp    Kind = "follow_up"    // the next campaign step
	KindRailTimeout Kind = "rail_timeout" // processing without the rail's answer recorded
)

// Due is a claimed row of the scheduler's queue.
type Due struct {
	ItemID    string
	Kind      Kind
	TenantID  string
	Direction txn.Direction
	DueAt     time.Time
	Attempts  int
	// lease is the due_at the claim wrote; Done deletes the row only while it
	// still holds it, so work rescheduled by the handler survives.
	lease time.Time
}

// Schedule queues work of kind for it at dueAt, replacing any earlier
// instant of the same kind.
func (t *Tx) Schedule(ctx context.Context, it txn.Item, kind Kind, dueAt time.Time) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO due_work (item_id, kind, tenant_id, direction, due_at) VALUES ($1, $2, $3, $4, $5)
 ON CONFLICT (item_id, kind) DO UPDATE SET due_at = EXCLUDED.due_at, attempts = 0`,
		it.ID, kind, t.tenantID, it.Direction, dueAt)
	if err != nil {
		return fmt.Errorf("scheduling %s: %w", kind, err)
	}
	return nil
}

// Unschedule drops queued work of the given kinds for an item.
func (t *Tx) Unschedule(ctx context.Context, itemID string, kinds ...Kind) error {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	_, err := t.tx.Exec(ctx, "DELETE FROM due_work WHERE item_id = $1 AND kind = ANY($2)", itemID, names)
	if err != nil {
		return fmt.Errorf("unscheduling: %w", err)
	}
	return nil
}

// Claim takes up to limit rows due at now, across tenants: FOR UPDATE SKIP
// LOCKED lets replicas claim disjoint rows, and each claimed row's due_at is
// pushed to now + lease*attempts, so a replica that dies mid-work leaves the
// row to be claimed again after the lease. The claim commits at once; no
// lock is held while the work runs.
func (s *Store) Claim(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]Due, error) {
	var out []Due
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `UPDATE due_work w
 SET due_at = $1::timestamptz + make_interval(secs => $2::float8 * (w.attempts + 1)), attempts = w.attempts + 1
 FROM (SELECT item_id, kind FROM due_work WHERE due_at <= $1 ORDER BY due_at LIMIT $3 FOR UPDATE SKIP LOCKED) d
 WHERE w.item_id = d.item_id AND w.kind = d.kind
 RETURNING w.item_id, w.kind, w.tenant_id, w.direction, w.due_at, w.attempts`, now, lease.Seconds(), limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var d Due
			var kind, dir string
			if err := rows.Scan(&d.ItemID, &kind, &d.TenantID, &dir, &d.lease, &d.Attempts); err != nil {
				return err
			}
			d.Kind, d.Direction, d.DueAt = Kind(kind), txn.Direction(dir), now
			out = append(out, d)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("claiming due work: %w", err)
	}
	return out, nil
}

// Done removes a claimed row once its work is done, unless the work
// rescheduled the same kind meanwhile.
func (s *Store) Done(ctx context.Context, d Due) error {
	_, err := s.pool.Exec(ctx, "DELETE FROM due_work WHERE item_id = $1 AND kind = $2 AND due_at = $3", d.ItemID, d.Kind, d.lease)
	if err != nil {
		return fmt.Errorf("completing due work: %w", err)
	}
	return nil
}
