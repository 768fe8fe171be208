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
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/tenancy"
)

// Run performs the guarded write fn inside tx, a transaction scoped to
// req.TenantID (tenancy.Do or tenancy.Pipelined), exactly once per key:
//
//   - a new key (or one past Retention): fn runs in a savepoint, and its
//     response is stored with the key in the same transaction. A 4xx (an
//     error fn returns that httpx.APIError answers with a 4xx, or a
//     Response with a 4xx status) rolls
//     the savepoint back, so the write is undone while the key row with the
//     error response commits with tx;
//   - a key already committed with the same fingerprint (method, path,
//     SHA-256 of the body): its stored response is returned with
//     Replay.Replayed and fn is not called;
//   - a key committed with another fingerprint: 409 idempotency_conflict;
//   - a key held by a transaction still running: Run waits up to LockTimeout
//     for it, then returns 409 idempotency_in_progress with Retry-After.
//
// The key is held by a transaction advisory lock on its hash, taken before
// the stored row is read: a concurrent request with the same key waits for
// the first to end and then reads what it stored, so fn never runs twice at
// once, and the key row is written once, with the response.
//
// A non-nil error means tx must be rolled back: the errors above, a failure
// of fn whose answer may not be stored, a database error, or
// ErrNotStored, returned with the response for 5xx and 429 responses.
func Run(ctx context.Context, tx pgx.Tx, req Request, fn func(Tx) (Response, error)) (Response, Replay, error) {
	if req.Key == "" {
		return Response{}, Replay{}, errors.New("idempotency: Run without a key")
	}
	if err := ValidateKey(req.Key); err != nil {
		return Response{}, Replay{}, err
	}
	sum := sha256.Sum256(req.Body)
	prev, found, err := lookup(ctx, tx, req)
	if err != nil {
		return Response{}, Replay{}, err
	}
	if found && !prev.expired {
		return replay(req, sum[:], prev)
	}
	resp, err := guard(ctx, tx, req, fn)
	if err != nil {
		return resp, Replay{}, err
	}
	if err := store(ctx, tx, req, sum[:], resp, found); err != nil {
		return Response{}, Replay{}, err
	}
	return resp, Replay{}, nil
}

// setLockTimeout bounds the wait for the key's lock, and every later lock
// wait of the transaction, by LockTimeout (SET LOCAL; in a Pipelined
// transaction it travels with the tenant scope).
func setLockTimeout(ctx context.Context, tx pgx.Tx) error {
	return tenancy.SetLocal(ctx, tx, "lock_timeout", strconv.Itoa(int(LockTimeout.Milliseconds()))+"ms")
}

// lockSQL takes the transaction advisory lock of a key (tenant and key
// hashed; a collision only makes two keys wait for each other).
const lockSQL = `SELECT pg_advisory_xact_lock(hashtext('idempotency_keys'), hashtext($1 || '/' || $2))`

// lookupSQL reads the stored row of a key. It runs after lockSQL, as a
// statement of its own: its snapshot then includes what the previous holder
// of the lock committed.
const lookupSQL = `SELECT method, path, body_sha256, request_id, status, headers, body,
       created_at < now() - interval '24 hours'
  FROM idempotency_keys WHERE tenant_id = $1 AND key = $2`

// storedKey is a key row as lookup reads it.
type storedKey struct {
	method, path, requestID string
	sum, body               []byte
	status                  *int
	header                  map[string]string
	expired                 bool
}

// lookup takes the key for this transaction and reads its stored row, if
// any. The lock timeout stays set for the rest of the transaction: a guarded
// write that waits longer than LockTimeout for a lock fails (and stores
// nothing) instead of holding its key and the clients waiting on it. In a
// Pipelined transaction the lock timeout, the lock and the read travel with
// BEGIN.
func lookup(ctx context.Context, tx pgx.Tx, req Request) (storedKey, bool, error) {
	if err := setLockTimeout(ctx, tx); err != nil {
		return storedKey{}, false, fmt.Errorf("idempotency: setting lock timeout: %w", err)
	}
	err := tenancy.Defer(ctx, tx, lockSQL, req.TenantID, req.Key)
	var k storedKey
	if err == nil {
		err = tx.QueryRow(ctx, lookupSQL, req.TenantID, req.Key).
			Scan(&k.method, &k.path, &k.sum, &k.requestID, &k.status, &k.header, &k.body, &k.expired)
	}
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return storedKey{}, false, nil
	case isLockTimeout(err):
		return storedKey{}, false, inProgress()
	case err != nil:
		return storedKey{}, false, fmt.Errorf("idempotency: reading key: %w", err)
	}
	return k, true, nil
}

// replay answers from the committed row of the key.
func replay(req Request, sum []byte, k storedKey) (Response, Replay, error) {
	if k.method != req.Method || k.path != req.Path || string(k.sum) != string(sum) {
		return Response{}, Replay{}, conflict()
	}
	if k.status == nil { // a row of the earlier claim-then-update scheme, never committed without a response
		return Response{}, Replay{}, inProgress()
	}
	return Response{Status: *k.status, Header: k.header, Body: k.body},
		Replay{Replayed: true, OriginalRequestID: k.requestID}, nil
}

// guard runs fn in a savepoint and turns its outcome into the response to
// store: a 2xx/3xx keeps the write, a 4xx undoes it. A failure that may not
// be stored is returned as an error.
func guard(ctx context.Context, tx pgx.Tx, req Request, fn func(Tx) (Response, error)) (Response, error) {
	sp, err := tx.Begin(ctx)
	if err != nil {
		return Response{}, fmt.Errorf("idempotency: opening savepoint: %w", err)
	}
	resp, err := fn(Tx{tx: sp, tenantID: req.TenantID})
	return settle(ctx, sp, req, resp, err)
}

// settle ends the savepoint sp that fn ran in with fn's outcome (resp, err):
// a 2xx/3xx keeps the write, a 4xx undoes it; it returns the response to
// store, or the failure that may not be stored.
func settle(ctx context.Context, sp pgx.Tx, req Request, resp Response, err error) (Response, error) {
	if err != nil {
		ae := httpx.APIError(err)
		if !storable(ae.Status) {
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

// insertSQL stores a key with its response. Under the key's lock the row
// cannot exist; a writer that took no lock makes it fail (unique
// violation), and the transaction with it, rather than store twice. key,
// body_sha256 and status are domains (migration 00003): their parameters
// are typed as the base types, which pgx encodes.
const insertSQL = `INSERT INTO idempotency_keys
	(tenant_id, key, method, path, body_sha256, request_id, status, headers, body)
	VALUES ($1, $2::text, $3, $4, $5::bytea, $6, $7::integer, $8, $9)`

// replaceSQL stores a key over its expired row.
const replaceSQL = `UPDATE idempotency_keys
	SET method = $3, path = $4, body_sha256 = $5::bytea, request_id = $6, status = $7::integer, headers = $8, body = $9,
	    created_at = now()
	WHERE tenant_id = $1 AND key = $2 AND created_at < now() - interval '24 hours'
	RETURNING true`

// store writes the key row with the response: an INSERT, which travels with
// COMMIT in a Pipelined transaction, or, over an expired row, an UPDATE
// (an INSERT when Cleanup deleted the row meanwhile).
func store(ctx context.Context, tx pgx.Tx, req Request, sum []byte, resp Response, expired bool) error {
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
	args := []any{req.TenantID, req.Key, req.Method, req.Path, sum, req.RequestID, resp.Status, string(h), body}
	if expired {
		var replaced bool
		err := tx.QueryRow(ctx, replaceSQL, args...).Scan(&replaced)
		if err == nil {
			return nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("idempotency: storing response: %w", err)
		}
	}
	if err := tenancy.Defer(ctx, tx, insertSQL, args...); err != nil {
		return fmt.Errorf("idempotency: storing response: %w", err)
	}
	return nil
}

// isLockTimeout reports whether err is Postgres's lock_not_available.
func isLockTimeout(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "55P03"
}
