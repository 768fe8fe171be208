package idempotency

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/tenancy"
)

// Run performs the guarded write fn inside tx, a transaction scoped to
// req.TenantID (tenancy.Do), exactly once per key:
//
//   - a new key (or one past Retention): the key row is inserted, fn runs in
//     a savepoint, and its response is stored in the same transaction. A 4xx
//     (an *apierr.Error returned by fn, or a Response with a 4xx status) rolls
//     the savepoint back, so the write is undone while the key row with the
//     error response stays and commits with tx;
//   - a key already committed with the same fingerprint (method, path,
//     SHA-256 of the body): its stored response is returned with
//     Replay.Replayed and fn is not called;
//   - a key committed with another fingerprint: 409 idempotency_conflict;
//   - a key held by a transaction still running: Run waits up to LockTimeout
//     for it, then returns 409 idempotency_in_progress with Retry-After.
//
// A non-nil error means tx must be rolled back: the errors above, a failure
// of fn that is not a storable *apierr.Error, a database error, or
// ErrNotStored, returned with the response for 5xx and 429 responses.
func Run(ctx context.Context, tx pgx.Tx, req Request, fn func(pgx.Tx) (Response, error)) (Response, Replay, error) {
	if req.Key == "" {
		return Response{}, Replay{}, errors.New("idempotency: Run without a key")
	}
	if err := ValidateKey(req.Key); err != nil {
		return Response{}, Replay{}, err
	}
	sum := sha256.Sum256(req.Body)
	claimed, err := claim(ctx, tx, req, sum[:])
	if err != nil {
		return Response{}, Replay{}, err
	}
	if !claimed {
		return replay(ctx, tx, req, sum[:])
	}
	resp, err := guard(ctx, tx, req, fn)
	if err != nil {
		return resp, Replay{}, err
	}
	if err := store(ctx, tx, req, resp); err != nil {
		return Response{}, Replay{}, err
	}
	return resp, Replay{}, nil
}

// claimSQL inserts the key row, or takes over a row past its retention. It
// returns a row only when this transaction now owns the key; a concurrent
// insert of the same key makes it wait (lock_timeout) until that one ends.
const claimSQL = `INSERT INTO idempotency_keys (tenant_id, key, method, path, body_sha256, request_id)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (tenant_id, key) DO UPDATE
   SET method = EXCLUDED.method, path = EXCLUDED.path, body_sha256 = EXCLUDED.body_sha256,
       request_id = EXCLUDED.request_id, status = NULL, headers = '{}', body = NULL, created_at = now()
 WHERE idempotency_keys.created_at < now() - interval '24 hours'
RETURNING true`

// claim takes the key for this transaction and reports whether it did; in a
// Pipelined transaction the lock timeout travels with the claim. The
// lock timeout stays set for the rest of the transaction: a guarded write
// that waits longer than LockTimeout for a lock fails (and stores nothing)
// instead of holding its key and the clients waiting on it.
func claim(ctx context.Context, tx pgx.Tx, req Request, sum []byte) (bool, error) {
	timeout := "SET LOCAL lock_timeout = '" + strconv.Itoa(int(LockTimeout.Milliseconds())) + "ms'"
	if err := tenancy.Defer(ctx, tx, timeout); err != nil {
		return false, fmt.Errorf("idempotency: setting lock timeout: %w", err)
	}
	var claimed bool
	err := tx.QueryRow(ctx, claimSQL, req.TenantID, req.Key, req.Method, req.Path, sum, req.RequestID).Scan(&claimed)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return false, nil
	case isLockTimeout(err):
		return false, inProgress()
	case err != nil:
		return false, fmt.Errorf("idempotency: claiming key: %w", err)
	}
	return true, nil
}

// replay answers from the committed row of the key.
func replay(ctx context.Context, tx pgx.Tx, req Request, sum []byte) (Response, Replay, error) {
	var (
		method, path, requestID string
		storedSum, body         []byte
		status                  *int
		header                  map[string]string
	)
	err := tx.QueryRow(ctx,
		`SELECT method, path, body_sha256, request_id, status, headers, body
		   FROM idempotency_keys WHERE tenant_id = $1 AND key = $2`,
		req.TenantID, req.Key).Scan(&method, &path, &storedSum, &requestID, &status, &header, &body)
	if err != nil {
		return Response{}, Replay{}, fmt.Errorf("idempotency: reading stored key: %w", err)
	}
	if method != req.Method || path != req.Path || string(storedSum) != string(sum) {
		return Response{}, Replay{}, conflict()
	}
	if status == nil { // unreachable: a committed row always has its response
		return Response{}, Replay{}, inProgress()
	}
	return Response{Status: *status, Header: header, Body: body},
		Replay{Replayed: true, OriginalRequestID: requestID}, nil
}

// guard runs fn in a savepoint and turns its outcome into the response to
// store: a 2xx/3xx keeps the write, a 4xx undoes it. A failure that may not
// be stored is returned as an error.
func guard(ctx context.Context, tx pgx.Tx, req Request, fn func(pgx.Tx) (Response, error)) (Response, error) {
	sp, err := tx.Begin(ctx)
	if err != nil {
		return Response{}, fmt.Errorf("idempotency: opening savepoint: %w", err)
	}
	resp, err := fn(sp)
	if err != nil {
		var ae *apierr.Error
		if !errors.As(err, &ae) || !storable(ae.Status) {
			_ = sp.Rollback(ctx) // tx is rolled back by the caller anyway
			return Response{}, err
		}
		resp = errorResponse(ae, req.RequestID)
	}
	if !storable(resp.Status) {
		_ = sp.Rollback(ctx)
		return resp, ErrNotStored
	}
	if resp.Status >= 400 {
		err = sp.Rollback(ctx)
	} else {
		err = sp.Commit(ctx)
	}
	if err != nil {
		return Response{}, fmt.Errorf("idempotency: ending savepoint: %w", err)
	}
	return resp, nil
}

// errorResponse renders an API error as the envelope the error handler
// would send, with the request's id.
func errorResponse(e *apierr.Error, requestID string) Response {
	header := map[string]string{"Content-Type": "application/json; charset=utf-8"}
	for k, v := range e.Headers {
		header[k] = v
	}
	if e.RetryAfter > 0 {
		header["Retry-After"] = strconv.Itoa(e.RetryAfter)
	}
	return Response{Status: e.Status, Header: header, Body: e.Marshal(requestID)}
}

// store records the response on the claimed key row. In a Pipelined
// transaction the UPDATE travels with COMMIT.
func store(ctx context.Context, tx pgx.Tx, req Request, resp Response) error {
	header := resp.Header
	if header == nil {
		header = map[string]string{}
	}
	h, err := json.Marshal(header)
	if err != nil {
		return fmt.Errorf("idempotency: encoding headers: %w", err)
	}
	body := resp.Body
	if body == nil {
		body = []byte{}
	}
	err = tenancy.Defer(ctx, tx,
		`UPDATE idempotency_keys SET status = $3, headers = $4, body = $5 WHERE tenant_id = $1 AND key = $2`,
		req.TenantID, req.Key, resp.Status, string(h), body)
	if err != nil {
		return fmt.Errorf("idempotency: storing response: %w", err)
	}
	return nil
}

// isLockTimeout reports whether err is Postgres's lock_not_available.
func isLockTimeout(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "55P03"
}
