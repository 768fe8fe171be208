package svcrun

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

// RegistrarFromEnv returns the Consul registrar when CONSUL_HTTP_ADDR is
// set (ACL token from CONSUL_HTTP_TOKEN), read through lookup (os.LookupEnv),
// and nil otherwise: without Consul (Kubernetes, devstack) the instance
// registers nowhere.
func RegistrarFromEnv(lookup func(string) (string, bool)) (discovery.Registrar, error) {
	if addr, _ := lookup("CONSUL_HTTP_ADDR"); addr == "" {
		return nil, nil
	}
	d, err := discovery.FromEnvironment(lookup)
	if err != nil {
		return nil, fmt.Errorf("CONSUL_HTTP_ADDR: %w", err)
	}
	return d.Registrar, nil
}

// announce registers the instance with spec.Registrar, when set: its HTTP
// port, and a health check on the internal listener's /readyz. It returns
// the function that deregisters it (a no-op without a Registrar), which
// uses a context of its own since ctx is done by then and only logs a
// failure: the agent drops the instance once its check stays critical.
func announce(ctx context.Context, spec Spec, addrs Addrs, log *slog.Logger) (func(), error) {
	if spec.Registrar == nil {
		return func() {}, nil
	}
	host := spec.AdvertiseHost
	if host == "" {
		h, err := os.Hostname()
		if err != nil {
			return nil, fmt.Errorf("registering with discovery: host name: %w", err)
		}
		host = h
	}
	reg, err := discovery.NewRegistration(spec.Name, host, addrs.HTTP, addrs.Internal)
	if err != nil {
		return nil, fmt.Errorf("registering with discovery: %w", err)
	}
	deregister, err := discovery.Announce(ctx, spec.Registrar, reg)
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
