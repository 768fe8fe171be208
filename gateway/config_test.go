package gateway_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/gateway"
)

func TestParseRoutes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    []gateway.Route
		wantErr bool
	}{
		{in: "", want: nil},
		{in: "/api/v1/contacts=http://contacts-svc:8080, /l/r=https://transactions-svc:8443,", want: []gateway.Route{
			{Prefix: "/api/v1/contacts", Upstream: "http://contacts-svc:8080"},
			{Prefix: "/l/r", Upstream: "https://transactions-svc:8443"},
		}},
		{in: "/api/v1/contacts", wantErr: true},
		{in: "api/v1/contacts=http://x:1", wantErr: true},
		{in: "/api/v1/contacts/=http://x:1", wantErr: true},
		{in: "/api/v1/contacts=ftp://x", wantErr: true},
		{in: "/api/v1/contacts=http://x:1/base", wantErr: true},
		{in: "/api/v1/contacts=contacts-svc:8080", wantErr: true},
		{in: "/a=http://x:1,/a=http://y:1", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := gateway.ParseRoutes(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseRoutes(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseRoutes(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestConfigFromEnv(t *testing.T) {
	for k, v := range map[string]string{
		"IDENTITY_URL":                    "http://identity-svc:8080",
		"ADMIN_TOKEN":                     "admin",
		"ROUTES":                          "/api/v1/contacts=http://contacts-svc:8080",
		"ADMIN_ROUTES":                    "/admin/v1/tenants=http://identity-svc:8080",
		"KAFKA_BROKERS":                   "k1:9092, k2:9092",
		"RATE_LIMIT_TOKEN_PER_MINUTE":     "100",
		"TOKEN_CACHE_TTL":                 "3s",
		"READ_TIMEOUT":                    "2s",
		"LISTEN_ADDR":                     "",
		"RATE_LIMIT_IP_PER_MINUTE":        "",
		"RATE_LIMIT_WEBHOOK_PER_MINUTE":   "",
		"RATE_LIMIT_PAGE_IP_PER_MINUTE":   "",
		"RATE_LIMIT_PAGE_LINK_PER_MINUTE": "",
		"TLS_CERT_FILE":                   "",
		"TLS_KEY_FILE":                    "",
		"PUBLIC_BASE_URL":                 "",
		"REDIS_URL":                       "",
		"LOG_LEVEL":                       "",
	} {
		t.Setenv(k, v)
	}
	cfg, err := gateway.ConfigFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = nil
	want := gateway.Config{
		ListenAddr: ":8443", AdminAddr: ":8444", InternalAddr: ":9090",
		IdentityURL: "http://identity-svc:8080", AdminToken: "admin",
		Routes:         []gateway.Route{{Prefix: "/api/v1/contacts", Upstream: "http://contacts-svc:8080"}},
		AdminRoutes:    []gateway.Route{{Prefix: "/admin/v1/tenants", Upstream: "http://identity-svc:8080"}},
		KafkaBrokers:   []string{"k1:9092", "k2:9092"},
		TokenPerMinute: 100, IPPerMinute: 30, WebhookPerMinute: 120, PageIPPerMinute: 300, PageLinkPerMinute: 30,
		TokenCacheTTL: 3 * time.Second,
		ReadTimeout:   2 * time.Second,
	}
	if diff := cmp.Diff(want, cfg, cmp.FilterPath(func(p cmp.Path) bool {
		return p.Last().String() == ".Ready" || p.Last().String() == ".ExtraRootCAs"
	}, cmp.Ignore())); diff != "" {
		t.Errorf("ConfigFromEnv (-want +got):\n%s", diff)
	}

	for name, env := range map[string][2]string{
		"no identity":      {"IDENTITY_URL", ""},
		"bad limit":        {"RATE_LIMIT_IP_PER_MINUTE", "many"},
		"bad page limit":   {"RATE_LIMIT_PAGE_LINK_PER_MINUTE", "0"},
		"bad ttl":          {"TOKEN_CACHE_TTL", "5"},
		"bad read timeout": {"READ_TIMEOUT", "-1s"},
		"cert without key": {"TLS_CERT_FILE", "/tmp/cert.pem"},
		"bad routes":       {"ROUTES", "/x"},
		"bad public url":   {"PUBLIC_BASE_URL", "localhost"},
		"bad log level":    {"LOG_LEVEL", "loud"},
		"no admin token":   {"ADMIN_TOKEN", ""},
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv(env[0], env[1])
			if _, err := gateway.ConfigFromEnv(); err == nil {
				t.Errorf("%s=%q: no error", env[0], env[1])
			}
		})
	}
}
