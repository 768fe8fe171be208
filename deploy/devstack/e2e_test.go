package devstack

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/libs/ids"
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
	logs := newLogBuffer(t)
	ctx, cancel := context.WithCancel(context.Background())
	readyCh := make(chan Info, 1)
	r := &running{logs: logs, cancel: cancel, done: make(chan error, 1)}
	go func() {
		r.done <- Run(ctx, Options{
			Root:        root,
			GatewayAddr: "127.0.0.1:0",
			AdminAddr:   "127.0.0.1:0",
			Log:         logs,
			Ready:       func(i Info) { readyCh <- i },
		})
	}()
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
	want := []string{"admin_token", "admin_url", "ca_file", "demo_tenant_id", "demo_token", "gateway_url", "sms_auth_token"}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("devstack.json keys (-want +got):\n%s", diff)
	}
	_, gwPort, _ := net.SplitHostPort(info.GatewayAddr)
	_, adminPort, _ := net.SplitHostPort(info.AdminAddr)
	wantValues := map[string]string{
		"gateway_url": "https://localhost:" + gwPort,
		"admin_url":   "https://127.0.0.1:" + adminPort,
		"ca_file":     filepath.Join(info.Root, "tls", "ca.pem"),
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

// e2e is an HTTPS client of a running stack.
type e2e struct {
	info  Info
	hc    *http.Client
	admin *client.Admin
}

func newE2E(t *testing.T, info Info) *e2e {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(readBytes(t, info.CAFile)) {
		t.Fatal("ca.pem holds no certificate")
	}
	hc := &http.Client{
		Timeout:   10 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
	}
	t.Cleanup(hc.CloseIdleConnections)
	return &e2e{info: info, hc: hc, admin: client.NewAdmin(info.AdminURL, info.AdminToken, hc)}
}

// response is a read response.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (e *e2e) do(t *testing.T, method, path, token string, header map[string]string) response {
	t.Helper()
	req, err := http.NewRequest(method, e.info.GatewayURL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := e.hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: body}
}

func (e *e2e) get(t *testing.T, path, token string) response {
	t.Helper()
	return e.do(t, http.MethodGet, path, token, nil)
}

func (e *e2e) expectStatus(t *testing.T, r response, want int) {
	t.Helper()
	if r.status != want {
		t.Fatalf("status %d, want %d; body %s", r.status, want, r.body)
	}
}

// expectError checks status, error.code and that error.request_id equals
// the X-Request-Id header.
func (e *e2e) expectError(t *testing.T, r response, status int, code string) {
	t.Helper()
	e.expectStatus(t, r, status)
	var env struct {
		Error struct {
			Code      string `json:"code"`
			RequestID string `json:"request_id"`
		} `json:"error"`
	}
	if err := json.Unmarshal(r.body, &env); err != nil {
		t.Fatalf("error body %s: %v", r.body, err)
	}
	if env.Error.Code != code {
		t.Errorf("error.code %q, want %q", env.Error.Code, code)
	}
	if hdr := r.header.Get("X-Request-Id"); hdr == "" || env.Error.RequestID != hdr {
		t.Errorf("error.request_id %q, X-Request-Id %q: want equal and set", env.Error.RequestID, hdr)
	}
}

func (e *e2e) health(t *testing.T) {
	r := e.get(t, "/api/v1/healthcheck/app", "")
	e.expectStatus(t, r, http.StatusOK)
	var got map[string]any
	if err := json.Unmarshal(r.body, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"status": "ok"}, got); diff != "" {
		t.Errorf("health body (-want +got):\n%s", diff)
	}
	if !ids.Valid(r.header.Get("X-Request-Id")) {
		t.Errorf("X-Request-Id %q is not a ULID", r.header.Get("X-Request-Id"))
	}
}

func (e *e2e) unauthenticated(t *testing.T) {
	tests := []struct{ name, token string }{
		{name: "missing"},
		{name: "malformed", token: "abc"},
		{name: "unknown", token: "pl_999|" + strings.Repeat("a1B2", 12)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.expectError(t, e.get(t, "/api/v1/openapi.json", tt.token), http.StatusUnauthorized, "unauthenticated")
		})
	}
}

func (e *e2e) requestID(t *testing.T) {
	sent := ids.New()
	r := e.do(t, http.MethodGet, "/api/v1/healthcheck/app", "", map[string]string{"X-Request-Id": sent})
	if got := r.header.Get("X-Request-Id"); got != sent {
		t.Errorf("ULID X-Request-Id: got %q, want %q echoed", got, sent)
	}
	long := strings.Repeat("A", 100)
	r = e.do(t, http.MethodGet, "/api/v1/healthcheck/app", "", map[string]string{"X-Request-Id": long})
	if got := r.header.Get("X-Request-Id"); got == long || !ids.Valid(got) {
		t.Errorf("100-character X-Request-Id: got %q, want a fresh ULID", got)
	}
}

func (e *e2e) methodNotAllowed(t *testing.T) {
	r := e.do(t, http.MethodDelete, "/api/v1/healthcheck/app", "", nil)
	e.expectError(t, r, http.StatusMethodNotAllowed, "method_not_allowed")
	if allow := r.header.Get("Allow"); !strings.Contains(allow, "GET") {
		t.Errorf("Allow %q, want GET listed", allow)
	}
}

func (e *e2e) mint(t *testing.T, tenantID, name string) *client.NewToken {
	t.Helper()
	tok, err := e.admin.CreateToken(context.Background(), tenantID, client.TokenInput{
		Name: name, Abilities: []string{"api:view-any-contact"},
	})
	if err != nil {
		t.Fatalf("minting a token through the admin API: %v", err)
	}
	return tok
}

func (e *e2e) mintAndRevoke(t *testing.T) {
	tok := e.mint(t, e.info.DemoTenantID, "e2e revoke")
	e.expectStatus(t, e.get(t, "/api/v1/openapi.json", tok.Token), http.StatusOK)
	if err := e.admin.RevokeToken(context.Background(), e.info.DemoTenantID, tok.ID); err != nil {
		t.Fatalf("revoking: %v", err)
	}
	var last response
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if last = e.get(t, "/api/v1/openapi.json", tok.Token); last.status == http.StatusUnauthorized {
			e.expectError(t, last, http.StatusUnauthorized, "unauthenticated")
			return
		}
	}
	t.Fatalf("revoked token still answered %d after 10 s", last.status)
}

func (e *e2e) wrongSecret(t *testing.T) {
	tok := e.mint(t, e.info.DemoTenantID, "e2e secret")
	id, secret, ok := strings.Cut(tok.Token, "|")
	if !ok || len(secret) != 48 {
		t.Fatalf("minted token %q is not pl_<n>|<48 chars>", strings.SplitN(tok.Token, "|", 2)[0])
	}
	other := []byte(secret)
	if other[0] == 'a' {
		other[0] = 'b'
	} else {
		other[0] = 'a'
	}
	e.expectError(t, e.get(t, "/api/v1/openapi.json", id+"|"+string(other)), http.StatusUnauthorized, "unauthenticated")
	e.expectStatus(t, e.get(t, "/api/v1/openapi.json", tok.Token), http.StatusOK)
}

func (e *e2e) rateLimit(t *testing.T) {
	ctx := context.Background()
	name := "E2E rate limited"
	tenant, err := e.admin.CreateTenant(ctx, client.TenantInput{Name: &name})
	if err != nil {
		t.Fatal(err)
	}
	three := 3
	if _, err := e.admin.UpdateTenant(ctx, tenant.ID, client.TenantInput{
		Limits: &client.LimitsInput{APIRequestsPerMinute: &three},
	}); err != nil {
		t.Fatalf("PATCH api_requests_per_minute: %v", err)
	}
	tok := e.mint(t, tenant.ID, "e2e limited")
	for i := range 3 {
		r := e.get(t, "/api/v1/openapi.json", tok.Token)
		e.expectStatus(t, r, http.StatusOK)
		got := [2]string{r.header.Get("X-RateLimit-Limit"), r.header.Get("X-RateLimit-Remaining")}
		if want := [2]string{"3", strconv.Itoa(2 - i)}; got != want {
			t.Errorf("request %d: limit/remaining %v, want %v", i+1, got, want)
		}
	}
	r := e.get(t, "/api/v1/openapi.json", tok.Token)
	e.expectError(t, r, http.StatusTooManyRequests, "rate_limited")
	if s, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || s < 1 {
		t.Errorf("Retry-After %q, want a positive number of seconds", r.header.Get("Retry-After"))
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
