package idempotency

import (
	"context"
	"errors"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/reqid"
	"github.com/paylane/paylane/libs/tenancy"
)

// replayedHeaders are the response headers stored with a response besides
// the status and body.
var replayedHeaders = []string{fiber.HeaderContentType, fiber.HeaderLocation}

// Middleware guards the write routes it is mounted on (after authz.Middleware
// and the route's ability gate, so 401 and 403 are never stored). A request
// without Idempotency-Key passes through untouched. With a key, the
// middleware opens the tenant's transaction (tenancy.Pipelined: BEGIN, the
// scope, the lock timeout, the key's lock and its lookup travel together,
// and the stored response with COMMIT), takes the key
// (Run) and calls the rest of the chain inside it: the handler's use case
// finds the transaction with TxFrom and writes in it, so the write, its
// outbox events and the stored response commit together. An error the
// handler returns is stored as the envelope httpx.APIError answers for it
// when that answer is a 4xx other than 429 (the one mapping the error
// handler uses too), so handlers return their errors unmapped. A replay answers the stored
// status, headers and body byte for byte, with Idempotent-Replayed: true and
// Original-Request-Id. Speculate saves a round trip on routes whose
// handlers act on nothing but the transaction.
func Middleware(pool *pgxpool.Pool, opts ...Option) fiber.Handler {
	o := newOptions(opts)
	return func(c *fiber.Ctx) error {
		return guardRequest(c, pool, o, nil)
	}
}

// Wrap is Middleware for one handler h, which it calls itself rather than
// through the chain, so it may call it twice. With Speculate, a guarded
// write first runs in one round trip: the key's lock, the handler's
// statements, the stored response and COMMIT travel together,
// on the assumption that the key is new (the stored response is a plain
// INSERT, so a used or held key fails the transaction). Handlers learn of
// the attempt from OneShot and may assume the outcome they expect of their
// statements when a failed expectation fails a statement. When the attempt
// fails for any reason other than a response (a used key, a refused
// assumption, a lost race), its transaction is rolled back and the request
// runs again as under Middleware, which gives the answer.
func Wrap(pool *pgxpool.Pool, h fiber.Handler, opts ...Option) fiber.Handler {
	o := newOptions(opts)
	return func(c *fiber.Ctx) error {
		return guardRequest(c, pool, o, h)
	}
}

// guardRequest runs the guarded request c: through the rest of the chain
// when h is nil, else through h (see Wrap).
func guardRequest(c *fiber.Ctx, pool *pgxpool.Pool, o options, h fiber.Handler) error {
	key := c.Get(HeaderKey)
	if key == "" {
		if h != nil {
			return h(c)
		}
		return c.Next()
	}
	if err := ValidateKey(key); err != nil {
		return err
	}
	// A compressed body is refused before the key is used: its 415 must not
	// be stored under the key (httpx.Decode would refuse it inside).
	if err := httpx.CheckEncoding(c); err != nil {
		return err
	}
	claims := authz.ClaimsFrom(c)
	if claims == nil {
		return apierr.Unauthenticated()
	}
	ctx := c.UserContext()
	req := Request{
		TenantID: claims.TenantID, Key: strings.Clone(key),
		Method: c.Method(), Path: strings.Clone(c.Path()), Body: c.Request().Body(),
		RequestID: reqid.From(ctx),
	}
	next := c.Next
	if h != nil {
		next = func() error { return h(c) }
	}
	attempt := func(mode runMode) (Response, Replay, error) {
		var (
			resp   Response
			replay Replay
		)
		err := tenancy.Pipelined(ctx, pool, req.TenantID, func(tx pgx.Tx) error {
			var err error
			resp, replay, err = mode.run(ctx, tx, req, func(sp pgx.Tx) (Response, error) {
				scoped := scopedTx{tx: sp, tenantID: req.TenantID, oneShot: mode == oneShot}
				c.SetUserContext(context.WithValue(ctx, txKey{}, scoped))
				defer c.SetUserContext(ctx)
				if err := next(); err != nil {
					return Response{}, err
				}
				return captured(c), nil
			})
			return err
		})
		return resp, replay, err
	}
	var (
		resp   Response
		replay Replay
		err    error
	)
	switch {
	case o.speculate && h != nil:
		resp, replay, err = attempt(oneShot)
		if isLockTimeout(err) { // the key is held: waiting again would not help
			err = inProgress()
		}
		if retryable(ctx, err) {
			forget(c)
			// The key is most likely used: look it up first.
			resp, replay, err = attempt(classic)
		}
	case o.speculate:
		resp, replay, err = attempt(speculative)
	default:
		resp, replay, err = attempt(classic)
	}
	if err != nil && !errors.Is(err, ErrNotStored) {
		return err
	}
	send(c, resp, replay)
	return nil
}

// captured reads the response the handler wrote.
func captured(c *fiber.Ctx) Response {
	header := map[string]string{}
	for _, h := range replayedHeaders {
		if v := c.Response().Header.Peek(h); len(v) > 0 {
			header[h] = string(v)
		}
	}
	return Response{
		Status: c.Response().StatusCode(),
		Header: header,
		Body:   append([]byte(nil), c.Response().Body()...),
	}
}

// send writes resp (fresh or replayed) as the response.
func send(c *fiber.Ctx, resp Response, replay Replay) {
	for k, v := range resp.Header {
		c.Set(k, v)
	}
	if replay.Replayed {
		c.Set(HeaderReplayed, "true")
		c.Set(HeaderOriginalRequestID, replay.OriginalRequestID)
	}
	c.Status(resp.Status)
	if len(resp.Body) == 0 {
		c.Response().ResetBody()
		return
	}
	c.Response().SetBodyRaw(resp.Body)
}

type txKey struct{}

type scopedTx struct {
	tx       pgx.Tx
	tenantID string
	oneShot  bool
}

// TxFrom returns the transaction Middleware opened for the request carried by
// ctx, and the tenant it is scoped to; ok is false for a request without
// Idempotency-Key. A store's write method runs in it when present, so the
// guarded write commits with the key row, and opens its own transaction
// otherwise.
func TxFrom(ctx context.Context) (tx pgx.Tx, tenantID string, ok bool) {
	s, ok := ctx.Value(txKey{}).(scopedTx)
	return s.tx, s.tenantID, ok
}

// OneShot reports whether the request carried by ctx runs in Wrap's
// one-round-trip attempt: its statements are sent with COMMIT, and if the
// transaction fails the handler runs again in a transaction of its own (with
// OneShot false). A store may then queue a statement whose result it does
// not wait for, and make it fail when its assumption does not hold (a
// division by zero, a violated constraint) instead of reading the result.
func OneShot(ctx context.Context) bool {
	s, ok := ctx.Value(txKey{}).(scopedTx)
	return ok && s.oneShot
}
