package discovery

import (
	"errors"
	"testing"
)

func TestEnvVar(t *testing.T) {
	t.Parallel()
	tests := []struct{ service, want string }{
		{"identity-svc", "IDENTITY_URL"},
		{"contacts-svc", "CONTACTS_URL"},
		{"ai-gateway-svc", "AI_GATEWAY_URL"},
		{"gateway", "GATEWAY_URL"},
	}
	for _, tt := range tests {
		t.Run(tt.service, func(t *testing.T) {
			t.Parallel()
			if got := EnvVar(tt.service); got != tt.want {
				t.Errorf("EnvVar(%q) = %q, want %q", tt.service, got, tt.want)
			}
		})
	}
}

func TestStatic(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"IDENTITY_URL": "http://identity.internal:9000/",
		"CONTACTS_URL": "",
	}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct {
		name     string
		resolver Resolver
		service  string
		want     string
		wantErr  error
	}{
		{"map hit, slash trimmed", NewStatic(map[string]string{"identity-svc": "http://id:8080/"}), "identity-svc", "http://id:8080", nil},
		{"map miss", NewStatic(map[string]string{"identity-svc": "http://id:8080"}), "contacts-svc", "", ErrUnknownService},
		{"env override", FromLookup(lookup), "identity-svc", "http://identity.internal:9000", nil},
		{"empty env falls back to DNS", FromLookup(lookup), "contacts-svc", "http://contacts-svc:8080", nil},
		{"unset env falls back to DNS", FromLookup(lookup), "batch-svc", "http://batch-svc:8080", nil},
		{"explicit only: set", explicitFromLookup(lookup), "identity-svc", "http://identity.internal:9000", nil},
		{"explicit only: empty", explicitFromLookup(lookup), "contacts-svc", "", ErrUnknownService},
		{"chain falls through", Chain{explicitFromLookup(lookup), NewStatic(map[string]string{"batch-svc": "http://b:1"})}, "batch-svc", "http://b:1", nil},
		{"chain of nothing", Chain{explicitFromLookup(lookup)}, "batch-svc", "", ErrUnknownService},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.resolver.Resolve(t.Context(), tt.service)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Resolve(%q) error = %v, want %v", tt.service, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("Resolve(%q) = %q, want %q", tt.service, got, tt.want)
			}
		})
	}
}
