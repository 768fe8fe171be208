package devstack

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/gateway"
)

func TestGatewayRoutesFromServiceTable(t *testing.T) {
	t.Parallel()
	rows := []service{
		{name: "identity", adminRoutes: []string{"/admin/v1/tenants"}},
		{name: "contacts", routes: []string{"/api/v1/contacts", "/api/v1/contact-field-definitions"}},
	}
	addrs := map[string]string{"identity": "127.0.0.1:4001", "contacts": "127.0.0.1:4002"}
	routes, admin := gatewayRoutes(rows, addrs)
	wantRoutes := []gateway.Route{
		{Prefix: "/api/v1/contacts", Upstream: "http://127.0.0.1:4002"},
		{Prefix: "/api/v1/contact-field-definitions", Upstream: "http://127.0.0.1:4002"},
	}
	wantAdmin := []gateway.Route{{Prefix: "/admin/v1/tenants", Upstream: "http://127.0.0.1:4001"}}
	if diff := cmp.Diff(wantRoutes, routes); diff != "" {
		t.Errorf("routes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantAdmin, admin); diff != "" {
		t.Errorf("admin routes (-want +got):\n%s", diff)
	}
}

func TestServiceTable(t *testing.T) {
	t.Parallel()
	rows := services()
	seen := map[string]bool{}
	for _, r := range rows {
		if seen[r.name] {
			t.Errorf("service %s listed twice", r.name)
		}
		seen[r.name] = true
		if r.run == nil {
			t.Errorf("service %s has no run function", r.name)
		}
	}
	if !seen["identity"] {
		t.Fatal("identity is missing from the service table")
	}
	for _, r := range rows {
		if r.name == "identity" && r.stage != 0 {
			t.Error("identity must start in stage 0: every other service needs its JWKS")
		}
	}
}

func TestPublicBaseURL(t *testing.T) {
	t.Parallel()
	tests := []struct{ addr, want string }{
		{":8443", "https://localhost:8443"},
		{"127.0.0.1:9443", "https://localhost:9443"},
		{"127.0.0.1:0", ""},
		{"bad", ""},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			t.Parallel()
			if got := publicBaseURL(tt.addr); got != tt.want {
				t.Errorf("publicBaseURL(%q) = %q, want %q", tt.addr, got, tt.want)
			}
		})
	}
}

func TestExitError(t *testing.T) {
	t.Parallel()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	boom := errors.New("boom")
	tests := []struct {
		name    string
		ctx     context.Context
		err     error
		wantErr bool
	}{
		{name: "clean stop on cancel", ctx: cancelled},
		{name: "canceled error on cancel", ctx: cancelled, err: context.Canceled},
		{name: "failure on cancel", ctx: cancelled, err: boom, wantErr: true},
		{name: "return without cancel", ctx: context.Background(), wantErr: true},
		{name: "failure", ctx: context.Background(), err: boom, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if err := exitError(tt.ctx, "svc", tt.err); (err != nil) != tt.wantErr {
				t.Errorf("exitError = %v, wantErr %v", err, tt.wantErr)
			}
		})
	}
}

func TestBannerHasTheCurlCommand(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	var out bytes.Buffer
	printBanner(&out, root, File{
		GatewayURL: "https://localhost:8443", CAFile: filepath.Join(root, "tls", "ca.pem"),
		AdminURL: "http://127.0.0.1:8444", DemoTenantID: "01TENANT", DemoToken: "pl_1|secret",
	})
	for _, want := range []string{
		"curl --cacert " + filepath.Join(root, "tls", "ca.pem") + " https://localhost:8443/api/v1/healthcheck/app",
		"pl_1|secret",
		"paylane-admin --config " + filepath.Join(root, "devstack.json") + " tokens create --tenant 01TENANT",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("banner lacks %q:\n%s", want, out.String())
		}
	}
}

func TestDisplayPathIsRelativeBelowTheWorkingDirectory(t *testing.T) {
	t.Parallel()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ abs, want string }{
		{filepath.Join(wd, ".paylane", "tls", "ca.pem"), filepath.Join(".paylane", "tls", "ca.pem")},
		{filepath.Join(filepath.Dir(wd), "elsewhere", "ca.pem"), filepath.Join(filepath.Dir(wd), "elsewhere", "ca.pem")},
	}
	for _, tt := range tests {
		if got := displayPath(tt.abs); got != tt.want {
			t.Errorf("displayPath(%q) = %q, want %q", tt.abs, got, tt.want)
		}
	}
}

// TestOTELVariablesReachTheProcesses: the devstack's OTEL_* variables (and
// only those) pass to the process-mode binaries, as the in-process services
// read them. Not parallel: it sets the process environment.
func TestOTELVariablesReachTheProcesses(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318")
	t.Setenv("PAYLANE_NOT_OTEL", "x")
	env := otelEnv()
	if !slices.Contains(env, "OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318") {
		t.Errorf("otelEnv() = %v, lacks the endpoint", env)
	}
	for _, kv := range env {
		if !strings.HasPrefix(kv, "OTEL_") {
			t.Errorf("otelEnv() passes %q", kv)
		}
	}
}
