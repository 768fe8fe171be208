package gateway_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/paylane/paylane/gateway"
	"github.com/paylane/paylane/gateway/openapi"
	"github.com/paylane/paylane/libs/svcrun"
)

func TestRunServesHealthDocumentAndInternalEndpoints(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	cfg := w.config()
	cfg.PublicBaseURL = "https://api.paylane.test"
	a := start(t, cfg)
	tok := w.identity.Issue(t, token(1))

	health := call(t, http.DefaultClient, http.MethodGet, url("http", a.Public, "/api/v1/healthcheck/app"), "")
	if health.status != http.StatusOK || string(health.body) != `{"status":"ok"}` {
		t.Errorf("health: %d %s", health.status, health.body)
	}
	wantError(t, call(t, http.DefaultClient, http.MethodGet, url("http", a.Public, "/api/v1/openapi.json"), ""), 401, "unauthenticated")
	doc := call(t, http.DefaultClient, http.MethodGet, url("http", a.Public, "/api/v1/openapi.json"), bearer(tok))
	plain, err := openapi.JSON()
	if err != nil {
		t.Fatal(err)
	}
	want, err := openapi.WithServer(plain, cfg.PublicBaseURL)
	if err != nil {
		t.Fatal(err)
	}
	if doc.status != http.StatusOK || string(doc.body) != string(want) {
		t.Errorf("openapi.json: %d, same document: %v", doc.status, string(doc.body) == string(want))
	}
	if !strings.Contains(string(doc.body), `"url":"https://api.paylane.test/api/v1"`) {
		t.Errorf("served document does not name the public host")
	}
	page := call(t, http.DefaultClient, http.MethodGet, url("http", a.Public, "/l/r/01JD3X0Q4Z8W2E5R7T9Y1V3K5N?expires=1&signature=ab"), bearer(tok))
	if page.status != http.StatusOK || page.echo.ForwardedProto != "https" || page.echo.ForwardedHost != "api.paylane.test" || page.echo.Authorization != "" {
		t.Errorf("hosted page: %d %+v", page.status, page.echo)
	}
	wantError(t, call(t, http.DefaultClient, http.MethodGet, url("http", a.Public, "/api/v1/contacts"), bearer(tok)), 404, "route_not_found")
	for _, path := range []string{"/healthz", "/readyz", "/metrics"} {
		if got := call(t, http.DefaultClient, http.MethodGet, url("http", a.Internal, path), ""); got.status != http.StatusOK {
			t.Errorf("internal %s: %d, want 200", path, got.status)
		}
	}
	wantError(t, call(t, http.DefaultClient, http.MethodGet, url("http", a.Public, "/api/v1/nowhere/+14155550123"), ""), 404, "route_not_found")
	metrics := call(t, http.DefaultClient, http.MethodGet, url("http", a.Internal, "/metrics"), "")
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(metrics.body))
	if err != nil {
		t.Fatalf("/metrics does not parse: %v", err)
	}
	routes := map[string]bool{}
	for _, m := range families["http_requests_total"].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "route" {
				routes[l.GetValue()] = true
			}
		}
	}
	// The documented template, the hosted pages' prefix and "unmatched",
	// never the raw path or the catch-all "/".
	for _, want := range []string{"/api/v1/healthcheck/app", "/api/v1/openapi.json", "/l/r/*", "unmatched"} {
		if !routes[want] {
			t.Errorf("route labels %v lack %q", routes, want)
		}
	}
	for route := range routes {
		if route == "/" || strings.Contains(route, "01JD3X0Q4Z8W2E5R7T9Y1V3K5N") || strings.Contains(route, "4155550123") {
			t.Errorf("route label %q is a catch-all or a raw path", route)
		}
	}
}

func TestTLS(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	cfg := w.config()
	certFile, keyFile, roots := selfSigned(t)
	cfg.TLSCertFile, cfg.TLSKeyFile = certFile, keyFile
	a := start(t, cfg)

	old := tlsClient(roots, tls.VersionTLS10, tls.VersionTLS11)
	if resp, err := old.Get(url("https", a.Public, "/api/v1/healthcheck/app")); err == nil {
		resp.Body.Close()
		t.Fatalf("a TLS 1.1 client got %d, want the handshake refused", resp.StatusCode)
	}
	if resp, err := old.Get(url("https", a.Admin, "/admin/v1/tenants")); err == nil {
		resp.Body.Close()
		t.Fatalf("admin listener: a TLS 1.1 client got %d, want the handshake refused", resp.StatusCode)
	}
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		c := tlsClient(roots, v, v)
		health := call(t, c, http.MethodGet, url("https", a.Public, "/api/v1/healthcheck/app"), "")
		if health.status != http.StatusOK {
			t.Errorf("TLS %x: health %d", v, health.status)
		}
		page := call(t, c, http.MethodGet, url("https", a.Public, "/l/r/x"), "")
		if page.status != http.StatusOK || page.echo.ForwardedProto != "https" || page.echo.ForwardedHost != a.Public {
			t.Errorf("TLS %x: hosted page %d, X-Forwarded-Proto %q Host %q", v, page.status, page.echo.ForwardedProto, page.echo.ForwardedHost)
		}
	}
	if _, err := http.Get(url("http", a.Public, "/api/v1/healthcheck/app")); err == nil {
		t.Errorf("plain HTTP on the TLS listener answered")
	}
}

func TestAdminListener(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	a := start(t, w.config())
	c := http.DefaultClient
	for name, auth := range map[string]string{
		"missing":     "",
		"wrong":       bearer("not-the-admin-token"),
		"prefix only": bearer(adminToken[:10]),
		"not bearer":  "Basic " + adminToken,
		"api token":   bearer(w.identity.Issue(t, token(1))),
	} {
		t.Run(name, func(t *testing.T) {
			wantError(t, call(t, c, http.MethodGet, url("http", a.Admin, "/admin/v1/tenants"), auth), 401, "unauthenticated")
		})
	}
	if n := len(w.upstream.Authorizations()); n != 0 {
		t.Fatalf("upstream reached %d times without the admin token", n)
	}
	got := call(t, c, http.MethodGet, url("http", a.Admin, "/admin/v1/tenants/01JD3X0Q4Z8W2E5R7T9Y1V3K5N/tokens?page=2"), bearer(adminToken))
	if got.status != http.StatusOK || got.echo.URI != "/admin/v1/tenants/01JD3X0Q4Z8W2E5R7T9Y1V3K5N/tokens?page=2" {
		t.Fatalf("forwarded: %d %+v", got.status, got.echo)
	}
	if got.echo.Authorization != bearer(adminToken) {
		t.Errorf("upstream saw Authorization %q, want the admin token unchanged", got.echo.Authorization)
	}
	if got.echo.RequestID == "" || got.echo.RequestID != got.header.Get("X-Request-Id") {
		t.Errorf("request id: upstream %q, response %q", got.echo.RequestID, got.header.Get("X-Request-Id"))
	}
	wantError(t, call(t, c, http.MethodGet, url("http", a.Admin, "/admin/v1/contacts"), bearer(adminToken)), 404, "route_not_found")
	wantError(t, call(t, c, http.MethodGet, url("http", a.Admin, "/api/v1/healthcheck/app"), bearer(adminToken)), 404, "route_not_found")
	// The public listener does not serve the admin plane.
	wantError(t, call(t, c, http.MethodGet, url("http", a.Public, "/admin/v1/tenants"), bearer(adminToken)), 404, "route_not_found")
}

func TestRunStopsWhenCancelledAtOnce(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	cfg := w.config()
	ctx, cancel := context.WithCancel(context.Background())
	// Ready cancels before the servers may have started serving.
	if err := gateway.Run(ctx, cfg, svcrun.WithReady(func(svcrun.Addrs) { cancel() })); err != nil {
		t.Errorf("Run = %v, want nil after shutdown", err)
	}
}

func TestRunRefusesBadConfig(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	for name, mod := range map[string]func(*gateway.Config){
		"no identity url": func(c *gateway.Config) { c.IdentityURL = "" },
		"no admin token":  func(c *gateway.Config) { c.AdminToken = "" },
		"bad route":       func(c *gateway.Config) { c.Routes = []gateway.Route{{Prefix: "x", Upstream: "http://x"}} },
		"missing cert":    func(c *gateway.Config) { c.TLSCertFile, c.TLSKeyFile = "/nonexistent.pem", "/nonexistent.key" },
		"bad redis url":   func(c *gateway.Config) { c.RedisURL = "mysql://x" },
		"bad address":     func(c *gateway.Config) { c.AdminAddr = "256.0.0.1:0" },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg := w.config()
			mod(&cfg)
			ready := svcrun.WithReady(func(svcrun.Addrs) { t.Error("Ready called for a bad configuration") })
			if err := gateway.Run(context.Background(), cfg, ready); err == nil {
				t.Error("Run = nil, want an error")
			}
		})
	}
}

// startTLSWithReadTimeout starts the gateway over TLS with a one-second read
// timeout and returns its addresses and the roots that trust its certificate.
func startTLSWithReadTimeout(t *testing.T) (gateway.Addrs, *x509.CertPool) {
	t.Helper()
	w := newWorld(t)
	cfg := w.config()
	certFile, keyFile, roots := selfSigned(t)
	cfg.TLSCertFile, cfg.TLSKeyFile = certFile, keyFile
	cfg.ReadTimeout = time.Second
	return start(t, cfg), roots
}

// dialTLS connects to addr trusting roots, with a 30-second deadline.
func dialTLS(t *testing.T, addr string, roots *x509.CertPool) *tls.Conn {
	t.Helper()
	conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: roots})
	if err != nil {
		t.Fatal(err)
	}
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	return conn
}

// TestSlowRequestOverTLS: a body shorter than its Content-Length is answered
// 408 in the envelope once the configured read timeout passes, on the public
// and the admin listener.
func TestSlowRequestOverTLS(t *testing.T) {
	t.Parallel()
	a, roots := startTLSWithReadTimeout(t)
	for _, addr := range []string{a.Public, a.Admin} {
		conn := dialTLS(t, addr, roots)
		_, err := io.WriteString(conn, "POST /api/v1/contacts HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n"+
			"Authorization: Bearer "+adminToken+"\r\n\r\n{")
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%s: %v", addr, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		conn.Close()
		var env struct {
			Error struct {
				Code      string `json:"code"`
				RequestID string `json:"request_id"`
			} `json:"error"`
		}
		_ = json.Unmarshal(body, &env)
		if resp.StatusCode != http.StatusRequestTimeout || env.Error.Code != "bad_request" ||
			env.Error.RequestID == "" || env.Error.RequestID != resp.Header.Get("X-Request-Id") {
			t.Errorf("%s: %d %s, want 408 bad_request with the request id", addr, resp.StatusCode, body)
		}
	}
}

// TestIdleKeptAliveConnectionIsClosedQuietly: after an answer, a kept-alive
// connection that sends nothing more is closed without a word once the idle
// time passes. An answer written to it (a 408 for a request nobody sent)
// would be read by the client as the answer to its next request.
func TestIdleKeptAliveConnectionIsClosedQuietly(t *testing.T) {
	t.Parallel()
	a, roots := startTLSWithReadTimeout(t)
	conn := dialTLS(t, a.Public, roots)
	defer conn.Close()
	if _, err := io.WriteString(conn, "GET /api/v1/healthcheck/app HTTP/1.1\r\nHost: localhost\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("health = %d", resp.StatusCode)
	}
	// Idle well past the read timeout: whatever comes now is unsolicited.
	_ = conn.SetReadDeadline(time.Now().Add(4 * time.Second))
	extra, err := io.ReadAll(br)
	if len(extra) > 0 {
		t.Fatalf("an idle kept-alive connection got %q (err %v); want nothing before the close", extra, err)
	}
}
