package idempotency

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/libs/tenancy"
)

// Option configures Middleware.
type Option func(*options)

type options struct {
	speculate bool
}

// Speculate lets Middleware run the handler before it knows whether the key
// was used, to save a round trip: in a tenancy.Pipelined transaction the
// key's lock and lookup then travel with BEGIN and the handler's first
// statement. When the key turns out to be used (a replay, a conflict) or
// held (in progress), the handler's savepoint is rolled back and its
// response dropped, so the answer is the one Run gives. Use it only on
// routes whose handlers act on nothing but the transaction (no calls to
// other services, no messages): those would happen for a replay too.
func Speculate() Option { return func(o *options) { o.speculate = true } }

// speculate is Run that queues the key's lock and lookup and runs fn at
// once (see Speculate); it is Run when tx is not a transaction of
// tenancy.Pipelined. In one shot (see Wrap) it takes the lock but reads
// nothing: it assumes a new key and leaves the stored response (an INSERT,
// which fails on a used key, and the attempt with it) to travel with
// COMMIT. The lock still keeps a classic run of the same key waiting until
// the attempt ends, so that run then reads what the attempt stored.
func speculate(ctx context.Context, tx pgx.Tx, req Request, fn func(pgx.Tx) (Response, error), oneShot bool) (Response, Replay, error) {
	var look speculativeLookup
	if req.Key == "" || ValidateKey(req.Key) != nil || !look.queue(ctx, tx, req, !oneShot) {
		return Run(ctx, tx, req, fn)
	}
	sp, err := tx.Begin(ctx)
	if err != nil {
		return Response{}, Replay{}, fmt.Errorf("idempotency: opening savepoint: %w", err)
	}
	resp, fnErr := fn(sp)
	// The lookup went out with fn's first statement, or goes now (what fn
	// deferred keeps waiting for COMMIT otherwise); in one shot there is none.
	if !look.done {
		if err := tenancy.Flush(ctx, tx); err != nil && !look.done {
			_ = sp.Rollback(ctx)
			return Response{}, Replay{}, fmt.Errorf("idempotency: reading key: %w", err)
		}
	}
	if err := look.failure(); err != nil {
		_ = sp.Rollback(ctx) // the caller rolls tx back
		return Response{}, Replay{}, err
	}
	sum := sha256.Sum256(req.Body)
	if look.found && !look.key.expired {
		if err := sp.Rollback(ctx); err != nil {
			return Response{}, Replay{}, fmt.Errorf("idempotency: undoing the speculative write: %w", err)
		}
		return replay(req, sum[:], look.key)
	}
	resp, err = settle(ctx, sp, req, resp, fnErr)
	if err != nil {
		return resp, Replay{}, err
	}
	if err := store(ctx, tx, req, sum[:], resp, look.found); err != nil {
		return Response{}, Replay{}, err
	}
	return resp, Replay{}, nil
}

// speculativeLookup is lookup queued: its outcome is known once the
// statements are sent.
type speculativeLookup struct {
	done, found bool
	key         storedKey
	err         error
}

// queue queues the lock timeout, the key's lock and, when read is set, the
// read of its row on tx, if tx is Pipelined. Without the read the key is
// taken for new.
func (l *speculativeLookup) queue(ctx context.Context, tx pgx.Tx, req Request, read bool) bool {
	if !tenancy.IsPipelined(tx) {
		return false
	}
	lock := &pgx.QueuedQuery{SQL: lockSQL, Arguments: []any{req.TenantID, req.Key}}
	lock.Fn = func(br pgx.BatchResults) error {
		_, err := br.Exec()
		if err != nil {
			l.done, l.err = true, err
		}
		return err
	}
	lookup := &pgx.QueuedQuery{SQL: lookupSQL, Arguments: []any{req.TenantID, req.Key}}
	lookup.Fn = func(br pgx.BatchResults) error {
		k := &l.key
		err := br.QueryRow().Scan(&k.method, &k.path, &k.sum, &k.requestID, &k.status, &k.header, &k.body, &k.expired)
		l.done, l.found = true, err == nil
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		l.err = err
		return err
	}
	if setLockTimeout(ctx, tx) != nil { // queued, never sent here
		return false
	}
	if !tenancy.Queue(tx, lock) {
		return false
	}
	if !read {
		l.done = true
		return true
	}
	return tenancy.Queue(tx, lookup)
}

// failure is the error of the lookup as Run reports it.
func (l *speculativeLookup) failure() error {
	switch {
	case l.err == nil:
		return nil
	case isLockTimeout(l.err):
		return inProgress()
	}
	return fmt.Errorf("idempotency: reading key: %w", l.err)
}
