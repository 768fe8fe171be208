package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/paylane/paylane/contacts-svc/internal/store"
	"github.com/paylane/paylane/libs/idempotency"
)

// TestBoundedStatementsAreCancelled: a statement of a bulk transaction that
// runs past its bound is cancelled by Postgres (query_canceled) and the
// transaction rolls back, releasing the batch's lock; here the statement is
// a retry queued behind another transaction holding that lock, which
// without the bound waits as long as the holder runs.
func TestBoundedStatementsAreCancelled(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	ctx := context.Background()
	holding, release := make(chan struct{}), make(chan struct{})
	holder := make(chan error, 1)
	go func() {
		holder <- s.Write(ctx, idempotency.Tx{}, tenantA, func(tx *store.Tx) error {
			if err := tx.LockBatch(ctx, "B1"); err != nil {
				return err
			}
			close(holding)
			<-release
			return nil
		})
	}()
	<-holding
	err := s.Write(ctx, idempotency.Tx{}, tenantA, func(tx *store.Tx) error {
		if err := tx.BoundStatements(ctx, 200*time.Millisecond); err != nil {
			return err
		}
		return tx.LockBatch(ctx, "B1")
	})
	var pgErr *pgconn.PgError
	if !errors.Is(err, store.ErrStatementTimedOut) || !errors.As(err, &pgErr) || pgErr.Code != "57014" {
		t.Errorf("the queued lock = %v, want ErrStatementTimedOut (query_canceled, 57014)", err)
	}
	close(release)
	if err := <-holder; err != nil {
		t.Fatal(err)
	}
	// The cancelled transaction holds nothing: the lock is free again.
	err = s.Write(ctx, idempotency.Tx{}, tenantA, func(tx *store.Tx) error {
		if err := tx.BoundStatements(ctx, 5*time.Second); err != nil {
			return err
		}
		return tx.LockBatch(ctx, "B1")
	})
	if err != nil {
		t.Errorf("locking the batch after the cancel: %v", err)
	}
}
