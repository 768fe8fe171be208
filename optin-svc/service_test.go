package optin_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/paylane/paylane/libs/testkit"
	optin "github.com/paylane/paylane/optin-svc"
	"github.com/paylane/paylane/optin-svc/internal/testenv"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func TestRunRefusesAnInvalidConfiguration(t *testing.T) {
	t.Parallel()
	err := optin.Run(context.Background(), optin.Config{})
	if err == nil || !strings.Contains(err.Error(), "invalid configuration") {
		t.Fatalf("Run() = %v", err)
	}
}

func TestRunServesProbesAndStops(t *testing.T) {
	t.Parallel()
	env := testenv.Start(t, testenv.Options{Brokers: testkit.Broker(t)})
	internal := env.InternalAddr
	for _, path := range []string{"/healthz", "/readyz", "/metrics"} {
		resp, err := http.Get("http://" + internal + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s = %d %s", path, resp.StatusCode, body)
		}
	}
	res := env.Do(t, http.MethodGet, "/nowhere", "", nil)
	if res.Status != http.StatusNotFound || res.ErrorCode() != "route_not_found" || res.Header.Get("X-Request-Id") == "" {
		t.Errorf("unknown route = %d %s", res.Status, res.Body)
	}
}

func TestMigrateNeedsBothDSNs(t *testing.T) {
	t.Parallel()
	if err := optin.Migrate(context.Background(), optin.Config{DatabaseURL: "postgres://x"}); err == nil {
		t.Fatal("Migrate without MIGRATE_DATABASE_URL returned nil")
	}
}
