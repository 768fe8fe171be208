// Package aigatewaysvc is ai-gateway-svc: the AI gateway routes
// (/api/v1/gateway). It owns no data and no money: it resolves and creates
// contacts through contacts-svc and prepares, confirms and reads
// transactions through transactions-svc, forwarding the caller's internal
// token and Idempotency-Key (the owning service records the key in its
// write transaction). Run wires it together.
package aigatewaysvc

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	contacts "github.com/paylane/paylane/contacts-svc/client"
	transactions "github.com/paylane/paylane/transactions-svc/client"

	"github.com/paylane/paylane/ai-gateway-svc/internal/app"
	"github.com/paylane/paylane/ai-gateway-svc/internal/httpapi"
	"github.com/paylane/paylane/ai-gateway-svc/internal/mcpapi"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/libs/svcrun"
)

const (
	jwksPath = "/internal/v1/jwks"
	// peerTimeout bounds a whole call to a peer; the clients apply their
	// own per-call timeouts and circuit breakers too.
	peerTimeout = 15 * time.Second
)

// Run serves ai-gateway-svc until ctx is done, then drains the HTTP
// listener and stops.
func Run(ctx context.Context, cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("invalid configuration: %w", err)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	hc := &http.Client{Timeout: peerTimeout}
	uc := app.New(
		contacts.New(strings.TrimRight(cfg.ContactsURL, "/"), hc),
		transactions.New(strings.TrimRight(cfg.TransactionsURL, "/"), hc),
	)
	reg := obs.NewRegistry()
	tracing, err := obs.NewTracing(ctx, serviceName)
	if err != nil {
		return fmt.Errorf("invalid configuration: %w", err)
	}
	web := httpx.NewApp(log)
	web.Use(obs.HTTPMetrics(reg, serviceName), tracing.Requests(log))
	httpapi.Register(web, uc, authz.NewVerifier(strings.TrimRight(cfg.IdentityURL, "/")+jwksPath, nil),
		mcpapi.NewHandler(uc, log))

	svc, err := svcrun.Start(ctx, svcrun.Options{Name: serviceName, HTTPAddr: cfg.HTTPAddr, HTTPListener: cfg.HTTPListener,
		InternalAddr: cfg.InternalAddr, Web: web, Registry: reg, Tracing: tracing, Log: log})
	if err != nil {
		return err
	}
	log.Info("ai-gateway-svc started", "http_addr", svc.HTTPAddr(), "internal_addr", svc.InternalAddr())
	if cfg.Ready != nil {
		cfg.Ready(Addrs{HTTP: svc.HTTPAddr(), Internal: svc.InternalAddr()})
	}
	err = svc.Wait()
	log.Info("ai-gateway-svc stopped")
	return err
}
