package idempotency

import (
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

// Handler is a write handler Wrap guards: tx is the request's write
// transaction (the zero Tx for a request without Idempotency-Key), which it
// passes on to its use case, and the use case to its store (InTx).
type Handler func(c *fiber.Ctx, tx Tx) error

// Wrap guards the write handler h (mounted after authz.Middleware and the
// route's ability gate, so 401 and 403 are never stored). A request without
// Idempotency-Key runs h with the zero Tx. With a key, Wrap opens the
// tenant's transaction (tenancy.Pipelined: BEGIN, the scope, the lock
// timeout, the key's lock and its lookup travel together, and the stored
// response with COMMIT), takes the key (Run) and runs h with the
// transaction as a Tx, so the write, its outbox events and the stored
// response commit together. An error h returns is stored as the envelope
// httpx.APIError answers for it when that answer is a 4xx other than 429
// (the one mapping the error handler uses too), so handlers return their
// errors unmapped. A replay answers the stored status, headers and body
// byte for byte, with Idempotent-Replayed: true and Original-Request-Id.
//
// With Speculate, a guarded write first runs in one round trip: the key's
// lock, the handler's statements, the stored response and COMMIT travel
// together, on the assumption that the key is new (the stored response is a
// plain INSERT, so a used or held key fails the transaction). Handlers learn
// of the attempt from Tx.OneShot and may assume the outcome they expect of
// their statements when a failed expectation fails a statement. When the
// attempt fails for any reason other than a response (a used key, a refused
// assumption, a lost race), its transaction is rolled back and the request
// runs again without speculating, which gives the answer; so h may run twice.
func Wrap(pool *pgxpool.Pool, h Handler, opts ...Option) fiber.Handler {
	o := newOptions(opts)
	return func(c *fiber.Ctx) error {
		return guardRequest(c, pool, o, h)
	}
}

// guardRequest runs the guarded request c through h.
func guardRequest(c *fiber.Ctx, pool *pgxpool.Pool, o options, h Handler) error {
	key := c.Get(HeaderKey)
	if key == "" {
		return h(c, Tx{})
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
	attempt := func(mode runMode) (Response, Replay, error) {
		var (
			resp   Response
			replay Replay
		)
		err := tenancy.Pipelined(ctx, pool, req.TenantID, func(tx pgx.Tx) error {
			var err error
			resp, replay, err = mode.run(ctx, tx, req, func(wtx Tx) (Response, error) {
				if err := h(c, wtx); err != nil {
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
	if o.speculate {
		resp, replay, err = attempt(oneShot)
		if isLockTimeout(err) { // the key is held: waiting again would not help
			err = inProgress()
		}
		if retryable(ctx, err) {
			forget(c)
			// The key is most likely used: look it up first.
			resp, replay, err = attempt(classic)
		}
	} else {
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
