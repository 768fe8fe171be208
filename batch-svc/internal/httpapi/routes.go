// Package httpapi is batch-svc's HTTP surface: the batch submissions
// (POST /api/v1/{contacts,receivables,payables}/batch) and the batch reads
// (/api/v1/batches). Handlers decode, call the use cases and render;
// errors.go maps domain errors to the envelope in one place.
package httpapi

import (
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paylane/paylane/batch-svc/internal/app"
	"github.com/paylane/paylane/batch-svc/internal/batch"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/idempotency"
)

// Page sizes (contract section 2).
const (
	batchesPerPage = 15
	errorsPerPage  = 25
)

// Handlers serves the routes on the use cases.
type Handlers struct {
	app *app.App
}

// Register mounts the routes on r behind the internal-token middleware;
// pool runs the Idempotency-Key transactions of the submissions. The
// submissions do not speculate (idempotency.Speculate): a receivables or
// payables submission may ask transactions-svc about its campaign.
func Register(r fiber.Router, a *app.App, pool *pgxpool.Pool, v *authz.Verifier) {
	h := &Handlers{app: a}
	api := r.Group("/api/v1", authz.Middleware(v))
	for _, t := range batch.Types() {
		api.Post("/"+string(t)+"/batch", authz.Require(t.CreateAbility()), idempotency.Wrap(pool, h.submit(t)))
	}
	api.Get("/batches", h.list)
	api.Get("/batches/:batch", h.show)
	api.Get("/batches/:batch/errors", h.rowErrors)
}

// viewer is who reads: the tenant and the view-any abilities it holds.
func viewer(c *fiber.Ctx) app.Viewer {
	claims := authz.ClaimsFrom(c)
	return app.Viewer{TenantID: claims.TenantID, CanView: func(t batch.Type) bool { return claims.Has(t.ViewAnyAbility()) }}
}

// baseURL is the public base URL of the request, for links: the scheme
// and host the gateway forwarded (X-Forwarded-Proto, X-Forwarded-Host),
// else http and Host, as libs/httpx builds pagination links.
func baseURL(c *fiber.Ctx) string {
	scheme := first(c.Get(fiber.HeaderXForwardedProto))
	if scheme == "" {
		scheme = "http"
	}
	host := first(c.Get(fiber.HeaderXForwardedHost))
	if host == "" {
		host = string(c.Request().Host())
	}
	return scheme + "://" + host
}

func first(v string) string {
	f, _, _ := strings.Cut(v, ",")
	return strings.TrimSpace(f)
}
