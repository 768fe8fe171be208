package devstack

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/pgcluster"
)

// TestEndToEnd starts the devstack in-process over a temporary root and
// drives it through the real gateway over HTTPS, then restarts it over the
// same root (after leaving a postgres running there, as a crash would) and
// checks that the demo tenant and token survived.
func TestEndToEnd(t *testing.T) {
	root := tempRoot(t)
	first := startStack(t, root)
	e := newE2E(t, first.info)

	t.Run("devstack.json", func(t *testing.T) { checkStateFile(t, first.info) })
	t.Run("health", e.health)
	t.Run("unauthenticated", e.unauthenticated)
	t.Run("request id", e.requestID)
	t.Run("openapi with the demo token", func(t *testing.T) {
		e.expectStatus(t, e.get(t, "/api/v1/openapi.json", e.info.DemoToken), http.StatusOK)
	})
	t.Run("README first payment, twice", e.readmeFirstPayment)
	t.Run("minted token works until revoked", e.mintAndRevoke)
	t.Run("same token id with another secret", e.wrongSecret)
	t.Run("tenant rate limit", e.rateLimit)
	t.Run("route not found", func(t *testing.T) {
		e.expectError(t, e.get(t, "/api/v1/nope", ""), http.StatusNotFound, "route_not_found")
	})
	t.Run("method not allowed", e.methodNotAllowed)
	first.stop(t)
	if t.Failed() {
		return
	}

	leaveRunningPostgres(t, filepath.Join(root, "pg"))
	second := startStack(t, root)
	defer second.stop(t)
	if diff := cmp.Diff(first.info.File.DemoTenantID, second.info.File.DemoTenantID); diff != "" {
		t.Errorf("demo tenant changed across restart (-first +second):\n%s", diff)
	}
	if second.info.DemoToken != first.info.DemoToken {
		t.Error("demo token changed across restart")
	}
	if second.info.DemoUserEmail != first.info.DemoUserEmail || second.info.DemoUserPassword != first.info.DemoUserPassword {
		t.Error("demo dashboard owner changed across restart")
	}
	if !strings.Contains(second.logs.String(), "from an earlier run still serves") {
		t.Error("the second start did not report stopping the postgres left running on its data directory")
	}
	e2 := newE2E(t, second.info)
	e2.expectStatus(t, e2.get(t, "/api/v1/openapi.json", first.info.DemoToken), http.StatusOK)
}

// running is a devstack started by startStack.
type running struct {
	info   Info
	logs   *logBuffer
	cancel context.CancelFunc
	done   chan error
}

func (r *running) stop(t *testing.T) {
	t.Helper()
	r.cancel()
	if err := <-r.done; err != nil {
		t.Errorf("devstack Run returned %v after cancel", err)
	}
}

func startStack(t *testing.T, root string) *running {
	t.Helper()
	return startStackWith(t, root, nil)
}

// startStackWith is startStack with Options changed by opts (when not nil).
func startStackWith(t *testing.T, root string, opts func(*Options)) *running {
	t.Helper()
	logs := newLogBuffer(t)
	ctx, cancel := context.WithCancel(context.Background())
	readyCh := make(chan Info, 1)
	r := &running{logs: logs, cancel: cancel, done: make(chan error, 1)}
	o := Options{
		Root:        root,
		GatewayAddr: "127.0.0.1:0",
		AdminAddr:   "127.0.0.1:0",
		Log:         logs,
		Ready:       func(i Info) { readyCh <- i },
	}
	if opts != nil {
		opts(&o)
	}
	go func() { r.done <- Run(ctx, o) }()
	select {
	case r.info = <-readyCh:
		return r
	case err := <-r.done:
		cancel()
		t.Fatalf("devstack stopped before it was ready: %v", err)
	case <-time.After(3 * time.Minute):
		cancel()
		<-r.done
		t.Fatal("devstack not ready after 3 minutes")
	}
	return nil
}

// startWithClient runs a devstack of the test's own, in a fresh root, and
// an e2e client of it. When the test ends the client's idle connections
// close first (the gateway's shutdown would wait for them), then the stack
// stops.
func startWithClient(t *testing.T) (*running, *e2e) {
	t.Helper()
	stack := startStack(t, tempRoot(t))
	t.Cleanup(func() { stack.stop(t) })
	e := newE2E(t, stack.info)
	t.Cleanup(e.hc.CloseIdleConnections)
	return stack, e
}

// tempRoot is a fresh root the postgres OS user can reach.
func tempRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "devstack-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "root")
}

// leaveRunningPostgres starts the cluster under dataDir and does not stop
// it, as a devstack killed with SIGKILL would leave it.
func leaveRunningPostgres(t *testing.T, dataDir string) {
	t.Helper()
	c, err := pgcluster.Start(context.Background(), pgcluster.Options{Dir: dataDir})
	if err != nil {
		t.Fatalf("starting the cluster a crashed run leaves behind: %v", err)
	}
	t.Cleanup(func() { c.Stop() })
}

func checkStateFile(t *testing.T, info Info) {
	path := filepath.Join(info.Root, "devstack.json")
	raw := readBytes(t, path)
	var got map[string]string
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("devstack.json: %v", err)
	}
	keys := make([]string, 0, len(got))
	for k, v := range got {
		keys = append(keys, k)
		if v == "" {
			t.Errorf("devstack.json: %s is empty", k)
		}
	}
	sort.Strings(keys)
	want := []string{"admin_token", "admin_url", "ca_file", "demo_tenant_id", "demo_token", "demo_user_email", "demo_user_password",
		"gateway_url", "kafka_brokers", "sms_auth_token", "stripe_api_base"}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("devstack.json keys (-want +got):\n%s", diff)
	}
	_, gwPort, _ := net.SplitHostPort(info.GatewayAddr)
	_, adminPort, _ := net.SplitHostPort(info.AdminAddr)
	wantValues := map[string]string{
		"gateway_url":   "https://localhost:" + gwPort,
		"admin_url":     "https://127.0.0.1:" + adminPort,
		"ca_file":       filepath.Join(info.Root, "tls", "ca.pem"),
		"kafka_brokers": strings.Join(info.Brokers, ","),
	}
	for k, v := range wantValues {
		if got[k] != v {
			t.Errorf("devstack.json %s = %q, want %q", k, got[k], v)
		}
	}
	for _, f := range []string{"devstack.json", "secrets.json", "tls/ca-key.pem", "tls/gateway-key.pem"} {
		st, err := os.Stat(filepath.Join(info.Root, f))
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %o, want 600", f, st.Mode().Perm())
		}
	}
}

// logBuffer collects the stack's output and prints it when the test fails.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func newLogBuffer(t *testing.T) *logBuffer {
	l := &logBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("devstack output:\n%s", l.String())
		}
	})
	return l
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}
