package devstack

import (
	"context"
	"fmt"
	"net"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/paylane/paylane/gateway"
	"github.com/paylane/paylane/libs/obs"
)

// startGateway starts the gateway in g with routes to the services' bound
// addresses and waits until its listeners are up.
func (s *stack) startGateway(ctx context.Context, g *errgroup.Group, public net.Listener, addrs map[string]string) (gateway.Addrs, error) {
	readyCh := make(chan gateway.Addrs, 1)
	cfg := gatewayConfig(s.gatewayDeps(addrs, "127.0.0.1:0"))
	cfg.PublicListener = public
	cfg.Logger = obs.NewLogger("gateway", s.opts.ServiceLog, s.opts.LogLevel)
	cfg.Ready = func(a gateway.Addrs) { readyCh <- a }
	s.logf("starting gateway")
	g.Go(func() error { return exitError(ctx, "gateway", gateway.Run(ctx, cfg)) })
	select {
	case a := <-readyCh:
		return a, nil
	case <-ctx.Done():
		return gateway.Addrs{}, fmt.Errorf("starting gateway: %w", context.Cause(ctx))
	}
}

// gatewayDeps is what the gateway is configured from.
type gatewayDeps struct {
	listenAddr, adminAddr, internalAddr string
	certFile, keyFile                   string
	identityURL                         string
	routes, adminRoutes                 []gateway.Route
	adminToken                          string
	brokers                             []string
	publicURL                           string
}

func (s *stack) gatewayDeps(addrs map[string]string, internal string) gatewayDeps {
	routes, adminRoutes := gatewayRoutes(services(), addrs)
	return gatewayDeps{
		listenAddr: s.opts.GatewayAddr, adminAddr: s.opts.AdminAddr, internalAddr: internal,
		certFile: s.tls.Cert, keyFile: s.tls.Key,
		identityURL: "http://" + addrs["identity"],
		routes:      routes, adminRoutes: adminRoutes,
		adminToken: s.secrets.AdminToken,
		brokers:    s.brokers,
		publicURL:  publicBaseURL(s.opts.GatewayAddr),
	}
}

func gatewayConfig(d gatewayDeps) gateway.Config {
	return gateway.Config{
		ListenAddr:        d.listenAddr,
		AdminAddr:         d.adminAddr,
		InternalAddr:      d.internalAddr,
		TLSCertFile:       d.certFile,
		TLSKeyFile:        d.keyFile,
		IdentityURL:       d.identityURL,
		Routes:            d.routes,
		AdminRoutes:       d.adminRoutes,
		AdminToken:        d.adminToken,
		KafkaBrokers:      d.brokers,
		TokenPerMinute:    60,
		IPPerMinute:       30,
		WebhookPerMinute:  120,
		PageIPPerMinute:   gateway.DefaultPageIPPerMinute,
		PageLinkPerMinute: gateway.DefaultPageLinkPerMinute,
		TokenCacheTTL:     5 * time.Second,
		ReadTimeout:       gateway.DefaultReadTimeout,
		PublicBaseURL:     d.publicURL,
	}
}

// gatewayEnv is gatewayConfig as the gateway binary's environment.
func gatewayEnv(d gatewayDeps) []string {
	return []string{
		"LISTEN_ADDR=" + d.listenAddr,
		"ADMIN_ADDR=" + d.adminAddr,
		"INTERNAL_ADDR=" + d.internalAddr,
		"TLS_CERT_FILE=" + d.certFile,
		"TLS_KEY_FILE=" + d.keyFile,
		"IDENTITY_URL=" + d.identityURL,
		"ROUTES=" + routesEnv(d.routes),
		"ADMIN_ROUTES=" + routesEnv(d.adminRoutes),
		"ADMIN_TOKEN=" + d.adminToken,
		"KAFKA_BROKERS=" + strings.Join(d.brokers, ","),
		"RATE_LIMIT_TOKEN_PER_MINUTE=60",
		"RATE_LIMIT_IP_PER_MINUTE=30",
		"RATE_LIMIT_WEBHOOK_PER_MINUTE=120",
		"RATE_LIMIT_PAGE_IP_PER_MINUTE=300",
		"RATE_LIMIT_PAGE_LINK_PER_MINUTE=30",
		"TOKEN_CACHE_TTL=5s",
		"PUBLIC_BASE_URL=" + d.publicURL,
		"LOG_LEVEL=info",
	}
}

// routesEnv writes routes as ROUTES reads them: prefix=upstream, comma
// separated.
func routesEnv(routes []gateway.Route) string {
	parts := make([]string, len(routes))
	for i, r := range routes {
		parts[i] = r.Prefix + "=" + r.Upstream
	}
	return strings.Join(parts, ",")
}

// gatewayRoutes builds the gateway's route tables from the service table.
func gatewayRoutes(rows []service, addrs map[string]string) (routes, admin []gateway.Route) {
	for _, row := range rows {
		upstream := "http://" + addrs[row.name]
		for _, p := range row.routes {
			routes = append(routes, gateway.Route{Prefix: p, Upstream: upstream})
		}
		for _, p := range row.adminRoutes {
			admin = append(admin, gateway.Route{Prefix: p, Upstream: upstream})
		}
	}
	return routes, admin
}

// publicBaseURL is the URL hosted-page links start with. With a fixed port it
// is https://localhost:<port>; with port 0 the port is unknown before the
// gateway binds, and the gateway falls back to the request's host.
func publicBaseURL(listenAddr string) string {
	_, port, err := net.SplitHostPort(listenAddr)
	if err != nil || port == "" || port == "0" {
		return ""
	}
	return "https://localhost:" + port
}

// localURL returns scheme://host:<port of addr>.
func localURL(scheme, host, addr string) (string, error) {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("parsing bound address %q: %w", addr, err)
	}
	return scheme + "://" + net.JoinHostPort(host, port), nil
}
