package discovery

import (
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

func TestFromEnvironmentWithoutConsul(t *testing.T) {
	t.Parallel()
	d, err := FromEnvironment(func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatalf("FromEnvironment: %v", err)
	}
	if _, ok := d.Registrar.(NoopRegistrar); !ok {
		t.Errorf("Registrar = %T, want NoopRegistrar", d.Registrar)
	}
}

func TestFromEnvironmentWithConsul(t *testing.T) {
	t.Parallel()
	f := newFakeConsul(t)
	env := map[string]string{"CONSUL_HTTP_ADDR": f.srv.URL, "CONSUL_HTTP_TOKEN": "tok"}
	d, err := FromEnvironment(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatalf("FromEnvironment: %v", err)
	}
	if _, ok := d.Registrar.(*Consul); !ok {
		t.Fatalf("Registrar = %T, want *Consul", d.Registrar)
	}
	reg := Registration{Name: "contacts-svc", Address: "10.1.0.1", Port: 8080, CheckURL: "http://10.1.0.1:9090/readyz"}
	if err := d.Registrar.Register(t.Context(), reg); err != nil {
		t.Fatalf("Register: %v", err)
	}
	if _, ok := f.snapshotRegistered()[reg.ServiceID()]; !ok {
		t.Errorf("the instance was not registered: %v", f.snapshotRegistered())
	}
	for _, tok := range f.snapshotTokens() {
		if tok != "tok" {
			t.Errorf("X-Consul-Token = %q, want the CONSUL_HTTP_TOKEN value", tok)
		}
	}
}
