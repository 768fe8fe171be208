package discovery

import (
	"errors"
	"testing"
)

func TestFromEnvironmentWithoutConsul(t *testing.T) {
	t.Parallel()
	env := map[string]string{"IDENTITY_URL": "http://127.0.0.1:18080"}
	d, err := FromEnvironment(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatalf("FromEnvironment: %v", err)
	}
	defer d.Close()
	if _, ok := d.Registrar.(NoopRegistrar); !ok {
		t.Errorf("Registrar = %T, want NoopRegistrar", d.Registrar)
	}
	tests := map[string]string{"identity-svc": "http://127.0.0.1:18080", "contacts-svc": "http://contacts-svc:8080"}
	for service, want := range tests {
		if got, err := d.Resolver.Resolve(t.Context(), service); err != nil || got != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", service, got, err, want)
		}
	}
}

func TestFromEnvironmentWithConsul(t *testing.T) {
	t.Parallel()
	f := newFakeConsul(t)
	f.set("contacts-svc", fakeInstance{Address: "10.1.0.1", Port: 8080, Passing: true})
	env := map[string]string{
		"CONSUL_HTTP_ADDR":  f.srv.URL,
		"CONSUL_HTTP_TOKEN": "tok",
		"IDENTITY_URL":      "http://identity.example:8080",
	}
	d, err := FromEnvironment(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatalf("FromEnvironment: %v", err)
	}
	t.Cleanup(d.Close)
	if _, ok := d.Registrar.(*Consul); !ok {
		t.Errorf("Registrar = %T, want *Consul", d.Registrar)
	}

	tests := []struct {
		service string
		want    string
		wantErr error
	}{
		{"identity-svc", "http://identity.example:8080", nil},
		{"contacts-svc", "http://10.1.0.1:8080", nil},
		{"batch-svc", "", ErrNoInstances},
	}
	for _, tt := range tests {
		got, err := d.Resolver.Resolve(t.Context(), tt.service)
		if !errors.Is(err, tt.wantErr) || got != tt.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q, %v", tt.service, got, err, tt.want, tt.wantErr)
		}
	}
	for _, q := range f.snapshotQueries() {
		if q.Service == "identity-svc" {
			t.Errorf("identity-svc was asked of consul although IDENTITY_URL is set")
		}
	}
	for _, tok := range f.snapshotTokens() {
		if tok != "tok" {
			t.Errorf("X-Consul-Token = %q, want the CONSUL_HTTP_TOKEN value", tok)
		}
	}
}
