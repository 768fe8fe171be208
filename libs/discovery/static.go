package discovery

import (
	"context"
	"fmt"
	"os"
	"strings"
)

// Static resolves services from fixed base URLs.
type Static struct {
	urls     map[string]string
	fallback func(service string) (string, bool)
}

// NewStatic returns a resolver that knows exactly the services in urls
// (service name → base URL). Any other name is ErrUnknownService.
func NewStatic(urls map[string]string) *Static {
	copied := make(map[string]string, len(urls))
	for name, u := range urls {
		copied[name] = strings.TrimRight(u, "/")
	}
	return &Static{urls: copied}
}

// FromEnv resolves every service from the process environment: the variable
// named by EnvVar when it is set and not empty, else DefaultURL (Kubernetes DNS).
func FromEnv() *Static {
	return FromLookup(os.LookupEnv)
}

// FromLookup is FromEnv with the environment read through lookup (os.LookupEnv
// in production, a map in tests).
func FromLookup(lookup func(string) (string, bool)) *Static {
	return &Static{fallback: func(service string) (string, bool) {
		if v, ok := lookup(EnvVar(service)); ok && v != "" {
			return strings.TrimRight(v, "/"), true
		}
		return DefaultURL(service), true
	}}
}

// explicitFromLookup resolves only services whose variable is set; Consul
// answers for the rest.
func explicitFromLookup(lookup func(string) (string, bool)) *Static {
	return &Static{fallback: func(service string) (string, bool) {
		v, ok := lookup(EnvVar(service))
		if !ok || v == "" {
			return "", false
		}
		return strings.TrimRight(v, "/"), true
	}}
}

// Resolve implements Resolver.
func (s *Static) Resolve(_ context.Context, service string) (string, error) {
	if u, ok := s.urls[service]; ok {
		return u, nil
	}
	if s.fallback != nil {
		if u, ok := s.fallback(service); ok {
			return u, nil
		}
	}
	return "", fmt.Errorf("resolving %q: %w", service, ErrUnknownService)
}
