// Package aigatewaysvc is ai-gateway-svc: the AI gateway routes
// (/api/v1/gateway). It owns no data and no money: it resolves and creates
// contacts through contacts-svc and prepares, confirms and reads
// transactions through transactions-svc, forwarding the caller's internal
// token and Idempotency-Key (the owning service records the key in its
// write transaction). Run wires it together on libs/svcrun.
package aigatewaysvc

import (
	"context"
	"net/http"
	"strings"
	"time"

	contacts "github.com/paylane/paylane/contacts-svc/client"
	transactions "github.com/paylane/paylane/transactions-svc/client"

	"github.com/paylane/paylane/ai-gateway-svc/internal/app"
	"github.com/paylane/paylane/ai-gateway-svc/internal/httpapi"
	"github.com/paylane/paylane/ai-gateway-svc/internal/mcpapi"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/svcrun"
)

const (
	jwksPath = "/internal/v1/jwks"
	// peerTimeout bounds a whole call to a peer; the clients apply their
	// own per-call timeouts and circuit breakers too.
	peerTimeout = 15 * time.Second
)

// Run serves ai-gateway-svc until ctx is done, then drains the HTTP
// listener and stops (libs/svcrun).
func Run(ctx context.Context, cfg Config, opts ...svcrun.Option) error {
	return svcrun.Run(ctx, svcrun.Spec{
		Name: serviceName, Base: cfg.Base, Validate: cfg.Validate,
		Build: func(_ context.Context, e *svcrun.Env) (svcrun.Parts, error) { return build(cfg, e), nil },
	}, opts...)
}

// build wires the use cases on the peers' clients and the routes.
func build(cfg Config, e *svcrun.Env) svcrun.Parts {
	hc := &http.Client{Timeout: peerTimeout}
	uc := app.New(
		contacts.New(strings.TrimRight(cfg.ContactsURL, "/"), hc),
		transactions.New(strings.TrimRight(cfg.TransactionsURL, "/"), hc),
	)
	web := e.NewApp()
	httpapi.Register(web, uc, authz.NewVerifier(strings.TrimRight(cfg.IdentityURL, "/")+jwksPath, nil),
		mcpapi.NewHandler(uc, e.Log))
	return svcrun.Parts{Web: web}
}
