package proxy_test

import (
	"bytes"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/gateway/internal/proxy"
	"github.com/paylane/paylane/libs/httpx"
)

// echo is what the upstream saw.
type echo struct {
	Method, URI, Host, BodySHA string
	Header                     http.Header
}

func upstream(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		sum := sha256.Sum256(body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Keep-Alive", "timeout=5")
		w.Header().Set("X-Upstream", "yes")
		w.Header().Set("X-Request-Id", "upstream-would-not-decide-this")
		w.WriteHeader(http.StatusTeapot)
		_ = json.NewEncoder(w).Encode(echo{Method: r.Method, URI: r.RequestURI, Host: r.Host,
			BodySHA: hex.EncodeToString(sum[:]), Header: r.Header})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func app(fw *proxy.Forwarder, r proxy.Request) *fiber.App {
	a := httpx.NewApp(nil, fiber.Config{BodyLimit: 8 << 20})
	a.Use(func(c *fiber.Ctx) error {
		c.Set("X-RateLimit-Limit", "60")
		return fw.Forward(c, r)
	})
	return a
}

func TestForwardRewritesRequestAndPassesAnswerBack(t *testing.T) {
	t.Parallel()
	up := upstream(t)
	fw := proxy.NewForwarder(proxy.Options{})
	a := app(fw, proxy.Request{Upstream: up.URL, Authorization: "Bearer internal.jwt", Proto: "https", Host: "api.example"})

	body := bytes.Repeat([]byte(`{"k":"v"},`), 200_000) // 2 MB
	req := httptest.NewRequest(http.MethodPost, "/api/v1/suppression-list/%2B15555550100?channel=sms&x=%2F", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer pl_1|secret")
	req.Header.Set("Connection", "keep-alive, X-Private")
	req.Header.Set("X-Private", "hop")
	req.Header.Set("Proxy-Authorization", "Basic x")
	req.Header.Set("X-Forwarded-For", "6.6.6.6")
	req.Header.Set("X-Request-Id", "01JD3X0Q4Z8W2E5R7T9Y1V3K5N")
	resp, got := forwardEcho(t, a, req)
	sum := sha256.Sum256(body)
	want := echo{Method: http.MethodPost, URI: "/api/v1/suppression-list/%2B15555550100?channel=sms&x=%2F",
		Host: strings.TrimPrefix(up.URL, "http://"), BodySHA: hex.EncodeToString(sum[:])}
	if diff := cmp.Diff(want, got, cmpIgnoreHeader()); diff != "" {
		t.Errorf("upstream saw (-want +got):\n%s", diff)
	}
	for name, want := range map[string]string{
		"Authorization": "Bearer internal.jwt", "X-Forwarded-Proto": "https", "X-Forwarded-Host": "api.example",
		"X-Forwarded-For": "0.0.0.0", "X-Request-Id": "01JD3X0Q4Z8W2E5R7T9Y1V3K5N",
		"X-Private": "", "Proxy-Authorization": "",
	} {
		if v := got.Header.Get(name); v != want {
			t.Errorf("upstream header %s = %q, want %q", name, v, want)
		}
	}
	if resp.StatusCode != http.StatusTeapot || resp.Header.Get("X-Upstream") != "yes" {
		t.Errorf("answer: status %d, X-Upstream %q; want the upstream's", resp.StatusCode, resp.Header.Get("X-Upstream"))
	}
	if resp.Header.Get("Keep-Alive") != "" {
		t.Errorf("hop-by-hop Keep-Alive passed back")
	}
	if id := resp.Header.Get("X-Request-Id"); id != "01JD3X0Q4Z8W2E5R7T9Y1V3K5N" {
		t.Errorf("X-Request-Id = %q, want the gateway's", id)
	}
	if v := resp.Header.Get("X-RateLimit-Limit"); v != "60" {
		t.Errorf("X-RateLimit-Limit = %q, want the gateway's 60", v)
	}
}

func cmpIgnoreHeader() cmp.Option {
	return cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Header" }, cmp.Ignore())
}

// forwardEcho sends req through a and decodes what the upstream saw.
func forwardEcho(t *testing.T, a *fiber.App, req *http.Request) (*http.Response, echo) {
	t.Helper()
	resp, err := a.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	var got echo
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	return resp, got
}

func TestForwardAuthorization(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		r          proxy.Request
		target     string
		clientAuth string
		want       string
		wantWhat   string
	}{
		{"KeepsAuthorizationWhenAsked", proxy.Request{KeepAuthorization: true, Proto: "http", Host: "h"},
			"/admin/v1/tenants", "Bearer admin-token", "Bearer admin-token", "want it unchanged"},
		{"WithoutAuthorizationDropsTheClients", proxy.Request{Proto: "https", Host: "h"},
			"/l/r/01JD3X0Q4Z8W2E5R7T9Y1V3K5N?expires=1&signature=ab", "Bearer pl_1|secret", "", "want none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			up := upstream(t)
			r := tc.r
			r.Upstream = up.URL
			a := app(proxy.NewForwarder(proxy.Options{}), r)
			req := httptest.NewRequest(http.MethodGet, tc.target, nil)
			req.Header.Set("Authorization", tc.clientAuth)
			_, got := forwardEcho(t, a, req)
			if v := got.Header.Get("Authorization"); v != tc.want {
				t.Errorf("Authorization = %q, %s", v, tc.wantWhat)
			}
		})
	}
}

func TestForwardUnreachableUpstream(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	a := app(proxy.NewForwarder(proxy.Options{}), proxy.Request{Upstream: "http://" + addr})
	req := httptest.NewRequest(http.MethodGet, "/api/v1/contacts", nil)
	req.Header.Set("X-Request-Id", "01JD3X0Q4Z8W2E5R7T9Y1V3K5N")
	resp, err := a.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct {
		Error struct {
			Code      string `json:"code"`
			RequestID string `json:"request_id"`
		} `json:"error"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&env)
	if resp.StatusCode != http.StatusServiceUnavailable || env.Error.Code != "service_unavailable" {
		t.Errorf("got %d %q, want 503 service_unavailable", resp.StatusCode, env.Error.Code)
	}
	if env.Error.RequestID != "01JD3X0Q4Z8W2E5R7T9Y1V3K5N" || resp.Header.Get("X-Request-Id") != env.Error.RequestID {
		t.Errorf("request id: body %q header %q", env.Error.RequestID, resp.Header.Get("X-Request-Id"))
	}
}

func TestForwardToHTTPSUpstreamTrustsExtraRoots(t *testing.T) {
	t.Parallel()
	up := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(up.Close)
	roots := x509.NewCertPool()
	roots.AddCert(up.Certificate())
	wrongName := strings.Replace(up.URL, "127.0.0.1", "localhost", 1) // not in the certificate
	tests := []struct {
		name     string
		upstream string
		roots    *x509.CertPool
		want     int
	}{
		{"local CA trusted", up.URL, roots, http.StatusNoContent},
		{"system roots only", up.URL, nil, http.StatusBadGateway},
		{"trusted CA, wrong host name", wrongName, roots, http.StatusBadGateway},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := app(proxy.NewForwarder(proxy.Options{ExtraRootCAs: tt.roots}), proxy.Request{Upstream: tt.upstream})
			resp, err := a.Test(httptest.NewRequest(http.MethodGet, "/api/v1/x", nil), -1)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.want)
			}
		})
	}
}

// TestForwardPassesAnUpstreamsOwnLimitOnIts429: a service that refuses with
// 429 and its own X-RateLimit-* (batch-svc's per-tenant batch limits) is
// answered with those, not with the token's limit the gateway had set; any
// other answer keeps the gateway's.
func TestForwardPassesAnUpstreamsOwnLimitOnIts429(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                  string
		status                int
		upLimit               string
		wantLimit, wantRemain string
	}{
		{"429 with its own limit", http.StatusTooManyRequests, "10", "10", "0"},
		{"429 without", http.StatusTooManyRequests, "", "60", "59"},
		{"202 with a limit", http.StatusAccepted, "10", "60", "59"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				if tc.upLimit != "" {
					w.Header().Set("X-RateLimit-Limit", tc.upLimit)
					w.Header().Set("X-RateLimit-Remaining", "0")
				}
				w.WriteHeader(tc.status)
			}))
			t.Cleanup(up.Close)
			a := httpx.NewApp(nil, fiber.Config{})
			fw := proxy.NewForwarder(proxy.Options{})
			a.Use(func(c *fiber.Ctx) error {
				c.Set("X-RateLimit-Limit", "60")
				c.Set("X-RateLimit-Remaining", "59")
				return fw.Forward(c, proxy.Request{Upstream: up.URL})
			})
			resp, err := a.Test(httptest.NewRequest(http.MethodPost, "/api/v1/contacts/batch", nil), -1)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.status || resp.Header.Get("X-RateLimit-Limit") != tc.wantLimit ||
				resp.Header.Get("X-RateLimit-Remaining") != tc.wantRemain {
				t.Errorf("status %d, X-RateLimit-Limit %q, Remaining %q; want %d, %q, %q", resp.StatusCode,
					resp.Header.Get("X-RateLimit-Limit"), resp.Header.Get("X-RateLimit-Remaining"), tc.status, tc.wantLimit, tc.wantRemain)
			}
		})
	}
}
