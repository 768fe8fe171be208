package identity_test

import (
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	identity "github.com/paylane/paylane/identity-svc"
	"github.com/paylane/paylane/identity-svc/internal/testenv"
	"github.com/paylane/paylane/libs/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func TestConfigFromEnv(t *testing.T) {
	seed := make([]byte, 32)
	seed[0] = 7
	t.Setenv("HTTP_ADDR", ":1234")
	t.Setenv("INTERNAL_ADDR", "")
	t.Setenv("DATABASE_URL", "postgres://app@db/identity")
	t.Setenv("MIGRATE_DATABASE_URL", "postgres://owner@db/identity")
	t.Setenv("DB_MAX_CONNS", "3")
	t.Setenv("KAFKA_BROKERS", "k1:9092, k2:9092,")
	t.Setenv("SIGNING_KEY", base64.StdEncoding.EncodeToString(seed))
	t.Setenv("ADMIN_TOKEN", "admin")
	t.Setenv("SERVICE_SECRET", "service-secret-0123456789")
	t.Setenv("CONSUL_HTTP_ADDR", "")
	t.Setenv("INTERNAL_TOKEN_TTL", "30s")
	t.Setenv("LOG_LEVEL", "debug")
	cfg, err := identity.ConfigFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Logger == nil {
		t.Error("no logger")
	}
	cfg.Logger = nil
	want := identity.Config{
		HTTPAddr: ":1234", InternalAddr: ":9090",
		DatabaseURL: "postgres://app@db/identity", MigrateDatabaseURL: "postgres://owner@db/identity",
		DBMaxConns: 3, KafkaBrokers: []string{"k1:9092", "k2:9092"}, SigningKey: seed,
		AdminToken: "admin", ServiceSecret: "service-secret-0123456789", InternalTokenTTL: 30 * time.Second,
	}
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Errorf("ConfigFromEnv() (-want +got):\n%s", diff)
	}
	if err := cfg.Validate(); err != nil {
		t.Errorf("Validate() = %v", err)
	}
}

func TestConfigFromEnvRejectsUnparsableValues(t *testing.T) {
	t.Setenv("DB_MAX_CONNS", "many")
	t.Setenv("SIGNING_KEY", "%%%")
	t.Setenv("INTERNAL_TOKEN_TTL", "soon")
	t.Setenv("LOG_LEVEL", "loud")
	_, err := identity.ConfigFromEnv()
	for _, name := range []string{"DB_MAX_CONNS", "SIGNING_KEY", "INTERNAL_TOKEN_TTL", "LOG_LEVEL"} {
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("ConfigFromEnv() error = %v, want it to name %s", err, name)
		}
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	valid := identity.Config{HTTPAddr: ":8080", InternalAddr: ":9090", DatabaseURL: "postgres://x", DBMaxConns: 1,
		SigningKey: make([]byte, 32), AdminToken: "a", InternalTokenTTL: time.Minute}
	tests := []struct {
		name   string
		mutate func(*identity.Config)
		want   string
	}{
		{"no database", func(c *identity.Config) { c.DatabaseURL = "" }, "DATABASE_URL"},
		{"short key", func(c *identity.Config) { c.SigningKey = make([]byte, 16) }, "SIGNING_KEY"},
		{"no admin token", func(c *identity.Config) { c.AdminToken = "" }, "ADMIN_TOKEN"},
		{"zero ttl", func(c *identity.Config) { c.InternalTokenTTL = 0 }, "INTERNAL_TOKEN_TTL"},
		{"no pool", func(c *identity.Config) { c.DBMaxConns = 0 }, "DB_MAX_CONNS"},
		{"short service secret", func(c *identity.Config) { c.ServiceSecret = "short" }, "SERVICE_SECRET"},
	}
	if err := valid.Validate(); err != nil {
		t.Fatalf("Validate(valid) = %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := valid
			tt.mutate(&c)
			if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate() = %v, want an error naming %s", err, tt.want)
			}
			if err := identity.Run(context.Background(), c); err == nil {
				t.Error("Run accepted an invalid configuration")
			}
		})
	}
}

func TestRunServesProbesAndTheAPI(t *testing.T) {
	t.Parallel()
	svc := testenv.Start(t, nil)
	for _, u := range []string{
		"http://" + svc.Addrs.Internal + "/healthz",
		"http://" + svc.Addrs.Internal + "/readyz",
		"http://" + svc.Addrs.Internal + "/metrics",
		svc.BaseURL() + "/internal/v1/jwks",
	} {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s = %d %s", u, resp.StatusCode, body)
		}
	}
	resp, err := http.Get(svc.BaseURL() + "/admin/v1/tenants")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("admin route without token = %d, want 401", resp.StatusCode)
	}
}

func TestRunMigratesAndStopsOnCancel(t *testing.T) {
	t.Parallel()
	pg := testkit.PG(t)
	// A database without the migrations: Run applies them with the owner DSN.
	app := pg.Database(t, "identity_empty")
	_, seed := testenv.Signer(t)
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan identity.Addrs, 1)
	done := make(chan error, 1)
	go func() {
		done <- identity.Run(ctx, identity.Config{
			HTTPAddr: "127.0.0.1:0", InternalAddr: "127.0.0.1:0",
			DatabaseURL: app, MigrateDatabaseURL: pg.OwnerDSN(t, app), DBMaxConns: 2,
			SigningKey: seed, AdminToken: testenv.AdminToken, InternalTokenTTL: time.Minute,
			Ready: func(a identity.Addrs) { ready <- a },
		})
	}()
	var addrs identity.Addrs
	select {
	case addrs = <-ready:
	case err := <-done:
		t.Fatalf("Run stopped early: %v", err)
	}
	req, _ := http.NewRequest(http.MethodPost, "http://"+addrs.HTTP+"/admin/v1/tenants", strings.NewReader(`{"name":"Acme"}`))
	req.Header.Set("Authorization", "Bearer "+testenv.AdminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Errorf("create tenant after migrating = %d, want 201", resp.StatusCode)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run after cancel = %v, want nil", err)
	}
}
