package httpapi

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/reqid"
	"github.com/paylane/paylane/libs/tenancy"
	"github.com/paylane/paylane/webhook-svc/internal/webhook"
	"github.com/paylane/paylane/webhook-svc/internal/wire"
)

type dataEnvelope struct {
	Data wire.Endpoint `json:"data"`
}

// withSecret answers a write whose response shows the signing secret
// (create, rotate-secret). Without Idempotency-Key it runs and renders. With
// one it guards the write like idempotency.Wrap does, except that the
// response stored for replay omits the secret (contract section 3): the
// secret is shown once, to the request that made it.
func (h *Handlers) withSecret(c *fiber.Ctx, status int, run func(*fiber.Ctx, idempotency.Tx) (webhook.WithSecret, error)) error {
	key := c.Get(idempotency.HeaderKey)
	if key == "" {
		ws, err := run(c, idempotency.Tx{})
		if err != nil {
			return err
		}
		return httpx.Data(c, status, wire.NewEndpointWithSecret(ws))
	}
	if err := idempotency.ValidateKey(key); err != nil {
		return err
	}
	ctx := c.UserContext()
	tenantID := tenant(c)
	req := idempotency.Request{
		TenantID: tenantID, Key: strings.Clone(key), Method: c.Method(), Path: strings.Clone(c.Path()),
		Body: c.Request().Body(), RequestID: reqid.From(ctx),
	}
	var (
		full   []byte
		resp   idempotency.Response
		replay idempotency.Replay
	)
	err := tenancy.Do(ctx, h.pool, tenantID, func(tx pgx.Tx) error {
		var err error
		resp, replay, err = idempotency.Run(ctx, tx, req, func(wtx idempotency.Tx) (idempotency.Response, error) {
			ws, err := run(c, wtx)
			if err != nil {
				return idempotency.Response{}, err
			}
			var stored []byte
			if full, stored, err = renderBoth(ws); err != nil {
				return idempotency.Response{}, err
			}
			return idempotency.Response{Status: status, Header: map[string]string{fiber.HeaderContentType: fiber.MIMEApplicationJSON}, Body: stored}, nil
		})
		return err
	})
	if err != nil && !errors.Is(err, idempotency.ErrNotStored) {
		return err
	}
	body := resp.Body
	if !replay.Replayed && full != nil && resp.Status == status {
		body = full
	}
	for k, v := range resp.Header {
		c.Set(k, v)
	}
	if replay.Replayed {
		c.Set(idempotency.HeaderReplayed, "true")
		c.Set(idempotency.HeaderOriginalRequestID, replay.OriginalRequestID)
	}
	return c.Status(resp.Status).Send(body)
}

// renderBoth renders the response with the secret (sent now) and without it
// (stored for replay).
func renderBoth(ws webhook.WithSecret) (full, stored []byte, err error) {
	if full, err = wire.Marshal(dataEnvelope{Data: wire.NewEndpointWithSecret(ws)}); err != nil {
		return nil, nil, fmt.Errorf("rendering endpoint: %w", err)
	}
	if stored, err = wire.Marshal(dataEnvelope{Data: wire.NewEndpoint(ws.Endpoint)}); err != nil {
		return nil, nil, fmt.Errorf("rendering endpoint: %w", err)
	}
	return full, stored, nil
}
