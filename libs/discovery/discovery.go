// Package discovery announces a running service where it is looked up.
//
// Services find each other at static base URLs: the Kubernetes Service DNS
// name (DefaultURL, http://<service>:8080), or the URL in the environment
// variable named by EnvVar (IDENTITY_URL for identity-svc), read by each
// service's configuration. When CONSUL_HTTP_ADDR is set, FromEnvironment
// returns a Consul registrar instead of a no-op one: the service registers
// itself with a health check at start and deregisters at stop, so tools
// outside Kubernetes that look services up in Consul find it.
package discovery

import (
	"context"
	"strings"
)

// Registrar announces an instance of the running service to a registry.
type Registrar interface {
	Register(ctx context.Context, reg Registration) error
	Deregister(ctx context.Context, serviceID string) error
}

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
