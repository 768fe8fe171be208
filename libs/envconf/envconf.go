// Package envconf is how every service reads its configuration: Base, the
// part every service shares (listeners, database, broker, identity-svc, log
// level), embedded in each service's Config, and Parse, which fills a
// Config from the environment by its struct tags. It holds no
// package-level state; every Parse reads the environment afresh.
package envconf

import (
	"net/url"
	"strings"
)

// splitList splits a comma-separated list, trimming spaces around each
// item and dropping empty ones. It returns nil when no item is left, so an
// unset variable reads as no list at all.
func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if p := strings.TrimSpace(part); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// IsHTTPURL reports whether s is an absolute http or https URL with a host,
// as the base URL of a peer service or a public origin must be.
func IsHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}
