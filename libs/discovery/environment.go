package discovery

import (
	"context"
	"errors"
	"fmt"
)

// Discovery is what a service needs from its environment: a Resolver for the
// services it calls and a Registrar for itself.
type Discovery struct {
	Resolver  Resolver
	Registrar Registrar
	close     func()
}

// Close stops the background watches, if any.
func (d *Discovery) Close() {
	if d.close != nil {
		d.close()
	}
}

// FromEnvironment picks the discovery mode from the environment read through
// lookup (os.LookupEnv in production):
//   - CONSUL_HTTP_ADDR unset: static URLs (FromLookup) and a NoopRegistrar.
//   - CONSUL_HTTP_ADDR set: Consul (token from CONSUL_HTTP_TOKEN) for
//     resolution and registration; a service's URL variable (EnvVar), when
//     set, still wins over Consul for that service.
//
// opts are passed to NewConsul after the token option.
func FromEnvironment(lookup func(string) (string, bool), opts ...Option) (*Discovery, error) {
	addr, _ := lookup("CONSUL_HTTP_ADDR")
	if addr == "" {
		return &Discovery{Resolver: FromLookup(lookup), Registrar: NoopRegistrar{}}, nil
	}
	if token, _ := lookup("CONSUL_HTTP_TOKEN"); token != "" {
		opts = append([]Option{WithToken(token)}, opts...)
	}
	c, err := NewConsul(addr, opts...)
	if err != nil {
		return nil, err
	}
	return &Discovery{
		Resolver:  Chain{explicitFromLookup(lookup), c},
		Registrar: c,
		close:     c.Close,
	}, nil
}

// Chain asks each resolver in turn; the next one is asked only when the
// previous does not know the service (ErrUnknownService).
type Chain []Resolver

// Resolve implements Resolver.
func (ch Chain) Resolve(ctx context.Context, service string) (string, error) {
	for _, r := range ch {
		u, err := r.Resolve(ctx, service)
		if errors.Is(err, ErrUnknownService) {
			continue
		}
		return u, err
	}
	return "", fmt.Errorf("resolving %q: %w", service, ErrUnknownService)
}
