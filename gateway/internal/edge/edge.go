// Package edge builds the gateway's Fiber applications: the public edge
// (route check against the OpenAPI document, token resolution, rate limits,
// body checks, forwarding) and the admin plane (admin token, forwarding).
package edge

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/paylane/paylane/gateway/internal/idemscope"
	"github.com/paylane/paylane/gateway/internal/proxy"
	"github.com/paylane/paylane/gateway/internal/routing"
	"github.com/paylane/paylane/gateway/internal/tokens"
	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/libs/ratelimit"
)

// Body limits (contract section 2).
const (
	MaxBody      = 1 << 20 // 1 MB
	MaxBatchBody = 5 << 20 // 5 MB, paths ending in /batch
)

// Resolver resolves a bearer token (tokens.Resolver).
type Resolver interface {
	Resolve(ctx context.Context, token, requestID string) (*tokens.Resolved, error)
}

// Limits are the per-minute rate limits.
type Limits struct {
	Token   int // per token, unless the tenant's own limit is set
	IP      int // per client IP without a valid token
	Webhook int // per client IP on /webhooks/
	// PageIP and PageLink limit the hosted pages (/l/...): per client IP,
	// and per payment or payout link (/l/r/{id}, /l/p/{id}). Many payers
	// share one carrier IP, so the pages have budgets of their own.
	PageIP, PageLink int
}

// Config is what the public edge needs.
type Config struct {
	Table     *routing.Table    // documented /api/v1 operations
	Routes    *routing.Prefixes // path prefix → upstream
	Resolver  Resolver
	Limiter   ratelimit.Limiter
	Limits    Limits
	Forwarder *proxy.Forwarder
	// Document is served at <base>/openapi.json.
	Document []byte
	// PublicBase, when set, gives X-Forwarded-Proto and X-Forwarded-Host.
	PublicBase *url.URL
	Registry   prometheus.Registerer // optional: request metrics
	Logger     *slog.Logger
	// Keys, when set, holds each Idempotency-Key to the service that first
	// received it (contract section 3: one scope across the API).
	Keys idemscope.Store
	// ReadTimeout bounds reading a request's header and body
	// (DefaultReadTimeout when 0).
	ReadTimeout time.Duration
	// Tracing starts each request's trace (nil: ids only, nothing exported).
	Tracing *obs.Tracing
}

// DefaultReadTimeout is the time a client has to send a whole request.
const DefaultReadTimeout = 5 * time.Second

// newApp returns a Fiber app with the shared middleware: request ids, panic
// recovery, metrics, the request's trace and the access log. Fiber itself
// buffers bodies up to MaxBatchBody; the per-route limits are checked by
// checkBody.
func newApp(log *slog.Logger, reg prometheus.Registerer, service string, readTimeout time.Duration, tracing *obs.Tracing) *fiber.App {
	if readTimeout <= 0 {
		readTimeout = DefaultReadTimeout
	}
	app := httpx.NewApp(log, fiber.Config{
		BodyLimit:    MaxBatchBody,
		ErrorHandler: errorHandler(log),
		ReadTimeout:  readTimeout,
		IdleTimeout:  120 * time.Second,
	})
	if reg != nil {
		app.Use(obs.HTTPMetrics(reg, service))
	}
	app.Use(tracing.EdgeRequests(log), func(c *fiber.Ctx) error {
		if err := checkFraming(c); err != nil {
			return err
		}
		return c.Next()
	})
	return app
}

// onUnknownMethod answers the requests whose method Fiber does not route
// (PROPFIND, any other token) through serve like any other: framing check,
// then serve, rendered and logged as accessLog does. Request metrics do not
// count them.
func onUnknownMethod(app *fiber.App, log *slog.Logger, serve fiber.Handler) {
	httpx.OnUnknownMethod(app, log, func(c *fiber.Ctx) error {
		start := time.Now()
		err := checkFraming(c)
		if err == nil {
			err = serve(c)
		}
		if err != nil {
			if herr := c.App().ErrorHandler(c, err); herr != nil {
				return herr
			}
		}
		obs.LogUnrouted(c.UserContext(), log, c.Method(), c.Response().StatusCode(), start)
		return nil
	})
}

// errorHandler renders errors as the envelope (httpx.ErrorHandler). A body
// above Fiber's limit is refused before any handler runs: on a /batch path
// it is batch_payload_too_large.
func errorHandler(log *slog.Logger) fiber.ErrorHandler {
	render := httpx.ErrorHandler(log)
	return func(c *fiber.Ctx, err error) error {
		var fe *fiber.Error
		if errors.As(err, &fe) && fe.Code == http.StatusRequestEntityTooLarge {
			err = tooLarge(isBatch(c.Path()))
		}
		return render(c, err)
	}
}

func isBatch(path string) bool { return strings.HasSuffix(path, "/batch") }

func tooLarge(batch bool) *apierr.Error {
	if batch {
		return apierr.New(http.StatusRequestEntityTooLarge, apierr.CodeBatchPayloadTooLarge,
			"The batch request body is larger than 5 MB.")
	}
	return apierr.New(http.StatusRequestEntityTooLarge, apierr.CodePayloadTooLarge,
		"The request body is larger than 1 MB.")
}

func unavailable() *apierr.Error {
	return apierr.New(http.StatusServiceUnavailable, apierr.CodeServiceUnavailable,
		"The service is temporarily unavailable. Please retry.")
}
