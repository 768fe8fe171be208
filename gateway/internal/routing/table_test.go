package routing_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/gateway/internal/routing"
)

const doc = `{
  "openapi": "3.1.0",
  "servers": [{"url": "/api/v1"}],
  "paths": {
    "/contacts": {"get": {}, "post": {}, "summary": "x"},
    "/contacts/{contact}": {"get": {}, "put": {}, "patch": {}, "delete": {}, "parameters": []},
    "/contacts/batch": {"post": {}},
    "/contacts/{contact}/restore": {"post": {}},
    "/suppression-list/{phone}": {"delete": {}}
  }
}`

func TestLookup(t *testing.T) {
	t.Parallel()
	table, err := routing.NewTable([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		path    string
		want    []string
		wantHit bool
	}{
		{"collection", "/api/v1/contacts", []string{"GET", "POST"}, true},
		{"template", "/api/v1/contacts/01JD3X0Q4Z8W2E5R7T9Y1U3I5O", []string{"DELETE", "GET", "PATCH", "PUT"}, true},
		{"literal beats template", "/api/v1/contacts/batch", []string{"POST"}, true},
		{"nested", "/api/v1/contacts/abc/restore", []string{"POST"}, true},
		{"encoded segment", "/api/v1/suppression-list/%2B15555550100", []string{"DELETE"}, true},
		{"param is one segment", "/api/v1/contacts/a/b", nil, false},
		{"empty param", "/api/v1/contacts/", nil, false},
		{"unknown", "/api/v1/nope", nil, false},
		{"without base", "/contacts", nil, false},
		{"other version", "/api/v2/contacts", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := table.Lookup(tt.path)
			if ok != tt.wantHit {
				t.Fatalf("Lookup(%q) ok = %v, want %v", tt.path, ok, tt.wantHit)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Lookup(%q) methods (-want +got):\n%s", tt.path, diff)
			}
		})
	}
}

func TestNewTableRejects(t *testing.T) {
	t.Parallel()
	for name, d := range map[string]string{
		"not json":       `{`,
		"no server":      `{"paths": {}}`,
		"absolute url":   `{"servers": [{"url": "https://x/api/v1"}], "paths": {}}`,
		"relative paths": `{"servers": [{"url": "/api/v1"}], "paths": {"contacts": {"get": {}}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if _, err := routing.NewTable([]byte(d)); err == nil {
				t.Errorf("NewTable(%s) = nil error, want an error", d)
			}
		})
	}
}

func TestSafe(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{
		"/":                             true,
		"/api/v1/contacts":              true,
		"/api/v1/suppression-list/%2B1": true,
		"":                              false,
		"api/v1":                        false,
		"/api//contacts":                false,
		"/api/v1/contacts/":             false,
		"/api/v1/x/../contacts":         false,
		"/api/v1/./contacts":            false,
		"/api/v1/%2E%2E/contacts":       false,
		"/api/v1/.%2e/contacts":         false,
	}
	for path, want := range tests {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			if got := routing.Safe(path); got != want {
				t.Errorf("Safe(%q) = %v, want %v", path, got, want)
			}
		})
	}
}

func TestPrefixesLongestWins(t *testing.T) {
	t.Parallel()
	p := routing.NewPrefixes([]routing.Pair{
		{Prefix: "/api/v1", Upstream: "http://catchall"},
		{Prefix: "/api/v1/contacts", Upstream: "http://contacts"},
		{Prefix: "/api/v1/contacts/batch", Upstream: "http://batch"},
		{Prefix: "/webhooks/", Upstream: "http://optin"},
	})
	tests := []struct {
		path string
		want string
	}{
		{"/api/v1/contacts", "http://contacts"},
		{"/api/v1/contacts/01J", "http://contacts"},
		{"/api/v1/contacts/batch", "http://batch"},
		{"/api/v1/contacts/batch/x", "http://batch"},
		{"/api/v1/contactsx", "http://catchall"},
		{"/webhooks/sms/inbound", "http://optin"},
		{"/webhooks", "http://optin"},
		{"/l/r/1", ""},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			got, ok := p.Match(tt.path)
			if ok != (tt.want != "") || got.Upstream != tt.want {
				t.Errorf("Match(%q) = %+v, %v; want upstream %q", tt.path, got, ok, tt.want)
			}
		})
	}
}

func TestPrefixesWithWildcardSegments(t *testing.T) {
	t.Parallel()
	p := routing.NewPrefixes([]routing.Pair{
		{Prefix: "/admin/v1/tenants", Upstream: "http://identity"},
		{Prefix: "/admin/v1/tenants/*/messages", Upstream: "http://optin"},
		{Prefix: "/admin/v1/tenants/*/opt-in-codes", Upstream: "http://optin"},
	})
	tests := map[string]string{
		"/admin/v1/tenants":                          "http://identity",
		"/admin/v1/tenants/01ABC":                    "http://identity",
		"/admin/v1/tenants/01ABC/tokens":             "http://identity",
		"/admin/v1/tenants/01ABC/messages":           "http://optin",
		"/admin/v1/tenants/01ABC/opt-in-codes":       "http://optin",
		"/admin/v1/tenants/01ABC/opt-in-codes/01DEF": "http://optin",
		"/admin/v1/tenants/01ABC/messagesx":          "http://identity",
		"/admin/v1/tenants//messages":                "http://identity",
	}
	for path, want := range tests {
		got, ok := p.Match(path)
		if !ok || got.Upstream != want {
			t.Errorf("Match(%q) = %v %v, want %s", path, got.Upstream, ok, want)
		}
	}
}
