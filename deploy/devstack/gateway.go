package devstack

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/paylane/paylane/gateway"
	"github.com/paylane/paylane/libs/obs"
	"golang.org/x/sync/errgroup"
)

// startGateway starts the gateway in g with routes to the services' bound
// addresses and waits until its listeners are up.
func (s *stack) startGateway(ctx context.Context, g *errgroup.Group, public net.Listener, addrs map[string]string) (gateway.Addrs, error) {
	routes, adminRoutes := gatewayRoutes(services(), addrs)
	readyCh := make(chan gateway.Addrs, 1)
	cfg := gateway.Config{
		ListenAddr:       s.opts.GatewayAddr,
		PublicListener:   public,
		AdminAddr:        s.opts.AdminAddr,
		InternalAddr:     "127.0.0.1:0",
		TLSCertFile:      s.tls.Cert,
		TLSKeyFile:       s.tls.Key,
		IdentityURL:      "http://" + addrs["identity"],
		Routes:           routes,
		AdminRoutes:      adminRoutes,
		AdminToken:       s.secrets.AdminToken,
		KafkaBrokers:     s.brokers,
		TokenPerMinute:   60,
		IPPerMinute:      30,
		WebhookPerMinute: 120,
		TokenCacheTTL:    5 * time.Second,
		PublicBaseURL:    publicBaseURL(s.opts.GatewayAddr),
		Logger:           obs.NewLogger("gateway", s.opts.ServiceLog, s.opts.LogLevel),
		Ready:            func(a gateway.Addrs) { readyCh <- a },
	}
	s.logf("starting gateway")
	g.Go(func() error { return exitError(ctx, "gateway", gateway.Run(ctx, cfg)) })
	select {
	case a := <-readyCh:
		return a, nil
	case <-ctx.Done():
		return gateway.Addrs{}, fmt.Errorf("starting gateway: %w", context.Cause(ctx))
	}
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
