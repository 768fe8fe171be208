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
// outbox events and the stored response commit together. Errors the handler
// returns are stored when they are *apierr.Error with a 4xx status other than
// 429, so handlers must return mapped API errors. A replay answers the stored
// status, headers and body byte for byte, with Idempotent-Replayed: true and
// Original-Request-Id. Speculate saves a round trip on routes whose
// handlers act on nothing but the transaction.
func Middleware(pool *pgxpool.Pool, opts ...Option) fiber.Handler {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	run := Run
	if o.speculate {
		run = runSpeculative
	}
	return func(c *fiber.Ctx) error {
		key := c.Get(HeaderKey)
		if key == "" {
			return c.Next()
		}
		if err := ValidateKey(key); err != nil {
			return err
		}
		claims := authz.ClaimsFrom(c)
		if claims == nil {
			return apierr.Unauthenticated()
		}
		ctx := c.UserContext()
		req := Request{
			TenantID: claims.TenantID, Key: strings.Clone(key),
			Method: c.Method(), Path: strings.Clone(c.Path()), Body: c.Body(),
			RequestID: reqid.From(ctx),
		}
		var (
			resp   Response
			replay Replay
		)
		err := tenancy.Pipelined(ctx, pool, req.TenantID, func(tx pgx.Tx) error {
			var err error
			resp, replay, err = run(ctx, tx, req, func(sp pgx.Tx) (Response, error) {
				c.SetUserContext(context.WithValue(ctx, txKey{}, scopedTx{tx: sp, tenantID: req.TenantID}))
				defer c.SetUserContext(ctx)
				if err := c.Next(); err != nil {
					return Response{}, err
				}
				return captured(c), nil
			})
			return err
		})
		if err != nil && !errors.Is(err, ErrNotStored) {
			return err
		}
		send(c, resp, replay)
		return nil
	}
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
