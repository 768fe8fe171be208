package idempotency

import (
	"context"
	"crypto/sha256"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/libs/tenancy"
)

// Option configures Wrap.
type Option func(*options)

type options struct {
	speculate bool
}

// Speculate lets Wrap run the handler before it knows whether the key was
// used, to save a round trip: the key's lock, the handler's statements, the
// stored response and COMMIT travel together in one tenancy.Pipelined
// transaction (see Wrap). When the key turns out to be used or held, the
// attempt fails and the request runs again the classic way, whose answer is
// the one Run gives. Use it only on routes whose handlers act on nothing
// but the transaction (no calls to other services, no messages): those
// would happen twice.
func Speculate() Option { return func(o *options) { o.speculate = true } }

// speculate is Run in one shot (see Speculate); it is Run when tx is not a
// transaction of tenancy.Pipelined. It takes the key's lock but reads
// nothing: it assumes a new key and leaves the stored response (an INSERT,
// which fails on a used key, and the attempt with it) to travel with
// COMMIT. The lock still keeps a classic run of the same key waiting until
// the attempt ends, so that run then reads what the attempt stored.
func speculate(ctx context.Context, tx pgx.Tx, req Request, fn func(Tx) (Response, error)) (Response, Replay, error) {
	var lock queuedLock
	if req.Key == "" || ValidateKey(req.Key) != nil || !lock.queue(ctx, tx, req) {
		return Run(ctx, tx, req, fn)
	}
	sp, err := tx.Begin(ctx)
	if err != nil {
		return Response{}, Replay{}, fmt.Errorf("idempotency: opening savepoint: %w", err)
	}
	resp, fnErr := fn(Tx{tx: sp, tenantID: req.TenantID, oneShot: true})
	// The lock went out with a statement fn waited for, if any.
	if err := lock.failure(); err != nil {
		_ = sp.Rollback(ctx) // the caller rolls tx back
		return Response{}, Replay{}, err
	}
	resp, err = settle(ctx, sp, req, resp, fnErr)
	if err != nil {
		return resp, Replay{}, err
	}
	sum := sha256.Sum256(req.Body)
	if err := store(ctx, tx, req, sum[:], resp, false); err != nil {
		return Response{}, Replay{}, err
	}
	return resp, Replay{}, nil
}

// queuedLock is the key's lock queued on a Pipelined transaction: its
// outcome is known once the statements are sent.
type queuedLock struct {
	err error
}

// queue queues the lock timeout and the key's lock on tx, if tx is
// Pipelined.
func (l *queuedLock) queue(ctx context.Context, tx pgx.Tx, req Request) bool {
	if !tenancy.IsPipelined(tx) {
		return false
	}
	lock := &pgx.QueuedQuery{SQL: lockSQL, Arguments: []any{req.TenantID, req.Key}}
	lock.Fn = func(br pgx.BatchResults) error {
		_, err := br.Exec()
		l.err = err
		return err
	}
	if setLockTimeout(ctx, tx) != nil { // queued, never sent here
		return false
	}
	return tenancy.Queue(tx, lock)
}

// failure is the error of the lock as Run reports it.
func (l *queuedLock) failure() error {
	switch {
	case l.err == nil:
		return nil
	case isLockTimeout(l.err):
		return inProgress()
	}
	return fmt.Errorf("idempotency: taking key: %w", l.err)
}
