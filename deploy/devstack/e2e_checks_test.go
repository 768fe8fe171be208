package devstack

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/libs/ids"
)

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
	return e.send(t, method, path, token, nil, header)
}

// send sends a request through the gateway with token (none when empty),
// body as JSON (no body when nil) and the extra headers, and reads the
// answer whole.
func (e *e2e) send(t *testing.T, method, path, token string, body any, header map[string]string) response {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, e.info.GatewayURL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
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
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: out}
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
	// Any method name: the gateway's route check on the API, the owning
	// service's router on a hosted page.
	r = e.do(t, "PROPFIND", "/api/v1/contacts", e.info.DemoToken, nil)
	e.expectError(t, r, http.StatusMethodNotAllowed, "method_not_allowed")
	if allow := r.header.Get("Allow"); allow != "GET, POST" {
		t.Errorf("PROPFIND /api/v1/contacts: Allow %q, want GET, POST", allow)
	}
	r = e.do(t, "PROPFIND", "/l/r/"+ids.New()+"?expires=1&signature=00", "", nil)
	e.expectError(t, r, http.StatusMethodNotAllowed, "method_not_allowed")
	if allow := r.header.Get("Allow"); !strings.Contains(allow, "GET") || !strings.Contains(allow, "POST") {
		t.Errorf("PROPFIND on a hosted page: Allow %q, want GET and POST listed", allow)
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
