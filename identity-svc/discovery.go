package identity

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/paylane/paylane/libs/discovery"
)

// deregisterTimeout bounds the deregistration at shutdown.
const deregisterTimeout = 5 * time.Second

// registrarFromEnv returns the Consul registrar when CONSUL_HTTP_ADDR is
// set (ACL token from CONSUL_HTTP_TOKEN), and nil otherwise: without Consul
// (Kubernetes, devstack) the instance registers nowhere.
func registrarFromEnv(lookup func(string) (string, bool)) (discovery.Registrar, error) {
	if addr, _ := lookup("CONSUL_HTTP_ADDR"); addr == "" {
		return nil, nil
	}
	d, err := discovery.FromEnvironment(lookup)
	if err != nil {
		return nil, fmt.Errorf("CONSUL_HTTP_ADDR: %w", err)
	}
	return d.Registrar, nil
}

// announce registers this instance with cfg.Registrar, when set: its HTTP
// port, and a health check on the internal listener's /readyz. It returns
// the function that deregisters it at shutdown (a no-op without a
// Registrar), which uses a context of its own since ctx is done by then and
// only logs a failure (the agent drops the instance once its check stays
// critical).
func announce(ctx context.Context, cfg Config, addrs Addrs, log *slog.Logger) (func(), error) {
	if cfg.Registrar == nil {
		return func() {}, nil
	}
	host := cfg.AdvertiseHost
	if host == "" {
		h, err := os.Hostname()
		if err != nil {
			return nil, fmt.Errorf("registering with discovery: host name: %w", err)
		}
		host = h
	}
	reg, err := discovery.NewRegistration(serviceName, host, addrs.HTTP, addrs.Internal)
	if err != nil {
		return nil, fmt.Errorf("registering with discovery: %w", err)
	}
	deregister, err := discovery.Announce(ctx, cfg.Registrar, reg)
	if err != nil {
		return nil, fmt.Errorf("registering with discovery: %w", err)
	}
	id := reg.ServiceID()
	log.Info("registered with discovery", "service_id", id)
	return func() {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), deregisterTimeout)
		defer cancel()
		if err := deregister(dctx); err != nil {
			log.Warn("deregistering from discovery", "service_id", id, "error", err)
			return
		}
		log.Info("deregistered from discovery", "service_id", id)
	}, nil
}
