// Package discovery tells a service where the services it calls live.
//
// By default every service is found at a static base URL: the Kubernetes
// Service DNS name (http://<service>:8080), or the URL in the environment
// variable named by EnvVar (IDENTITY_URL for identity-svc). When
// CONSUL_HTTP_ADDR is set, FromEnvironment resolves through Consul instead:
// healthy instances only, cached per service and kept current by blocking
// queries, and the service registers itself with a health check at start and
// deregisters at stop.
package discovery

import (
	"context"
	"errors"
	"strings"
)

// Resolver turns a service name (for example "identity-svc") into the base
// URL of one instance, without a trailing slash.
type Resolver interface {
	Resolve(ctx context.Context, service string) (string, error)
}

// Registrar announces an instance of the running service to a registry.
type Registrar interface {
	Register(ctx context.Context, reg Registration) error
	Deregister(ctx context.Context, serviceID string) error
}

// ErrUnknownService is returned by a resolver that has no address for the service.
var ErrUnknownService = errors.New("unknown service")

// ErrNoInstances is returned when the registry knows no healthy instance of the service.
var ErrNoInstances = errors.New("no healthy instances")

// ErrClosed is returned by a Consul resolver after Close.
var ErrClosed = errors.New("discovery closed")

// DefaultPort is the HTTP port every Paylane service listens on inside a cluster.
const DefaultPort = 8080

// EnvVar names the environment variable that overrides a service's base URL:
// the name without its "-svc" suffix, upper case, dashes as underscores, and
// "_URL" appended (identity-svc → IDENTITY_URL, ai-gateway-svc → AI_GATEWAY_URL).
func EnvVar(service string) string {
	name := strings.TrimSuffix(service, "-svc")
	name = strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
	return name + "_URL"
}

// DefaultURL is the base URL of a service inside Kubernetes: its Service DNS
// name on DefaultPort.
func DefaultURL(service string) string {
	return "http://" + service + ":8080"
}
