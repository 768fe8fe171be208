package webhooksvc_test

import (
	"encoding/base64"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	webhooksvc "github.com/paylane/paylane/webhook-svc"
)

func TestConfigFromEnv(t *testing.T) {
	key := make([]byte, 32)
	t.Setenv("DATABASE_URL", "postgres://app@localhost/webhook")
	t.Setenv("IDENTITY_URL", "http://identity-svc:8080")
	t.Setenv("KAFKA_BROKERS", "k1:9092, k2:9092")
	t.Setenv("WEBHOOK_ENCRYPTION_KEY", base64.StdEncoding.EncodeToString(key))
	t.Setenv("WEBHOOK_ALLOW_CIDRS", "127.0.0.0/8,::1")
	t.Setenv("WEBHOOK_DISPATCH_CONCURRENCY", "16")
	t.Setenv("WEBHOOK_POLL_INTERVAL", "100ms")
	cfg, err := webhooksvc.ConfigFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if diff := cmp.Diff([]string{"k1:9092", "k2:9092"}, cfg.KafkaBrokers); diff != "" {
		t.Errorf("brokers (-want +got):\n%s", diff)
	}
	wantAllow := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	if !cmp.Equal(wantAllow, []netip.Prefix(cfg.AllowCIDRs), cmp.Comparer(func(a, b netip.Prefix) bool { return a == b })) {
		t.Errorf("allow = %v", cfg.AllowCIDRs)
	}
	if cfg.DispatchConcurrency != 16 || cfg.PollInterval != 100*time.Millisecond || cfg.HTTPAddr != ":8080" {
		t.Errorf("config = %+v", cfg)
	}

	t.Setenv("WEBHOOK_ALLOW_CIDRS", "not-a-cidr")
	if _, err := webhooksvc.ConfigFromEnv(); err == nil || !strings.Contains(err.Error(), "WEBHOOK_ALLOW_CIDRS") {
		t.Errorf("bad allow-list: %v", err)
	}
}

func TestValidateNamesEveryProblem(t *testing.T) {
	t.Parallel()
	err := webhooksvc.Config{EncryptionKey: []byte("short")}.Validate()
	if err == nil {
		t.Fatal("an empty config validated")
	}
	for _, name := range []string{"HTTP_ADDR", "DATABASE_URL", "IDENTITY_URL", "WEBHOOK_ENCRYPTION_KEY", "WEBHOOK_DISPATCH_CONCURRENCY"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not name %s", err, name)
		}
	}
}
