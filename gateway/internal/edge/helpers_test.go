package edge_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paylane/paylane/gateway/internal/edge"
	"github.com/paylane/paylane/gateway/internal/peertest"
	"github.com/paylane/paylane/gateway/internal/proxy"
	"github.com/paylane/paylane/gateway/internal/routing"
	"github.com/paylane/paylane/gateway/internal/tokens"
	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/libs/ratelimit"
)

// testDoc documents a few service routes besides the gateway's own.
const testDoc = `{
  "openapi": "3.1.0",
  "servers": [{"url": "/api/v1"}],
  "paths": {
    "/healthcheck/app": {"get": {}},
    "/openapi.json": {"get": {}},
    "/contacts": {"get": {}, "post": {}},
    "/contacts/{contact}": {"get": {}, "put": {}, "patch": {}, "delete": {}},
    "/contacts/batch": {"post": {}},
    "/receivables": {"get": {}, "post": {}}
  }
}`

// env is a public edge on a real listener between a stand-in identity-svc
// and an upstream service.
type env struct {
	url      string
	identity *peertest.Identity
	upstream *peertest.Upstream
	token    string // a valid token, id 1
}

// newEnv starts the edge; mod may change its configuration. Routes:
// /api/v1/contacts, /l/r, /l/p, /l/o, /webhooks/sms/inbound and /dashboard go to the upstream;
// /api/v1/receivables is documented but has no route.
func newEnv(t testing.TB, mod func(*edge.Config, *env)) *env {
	t.Helper()
	e := &env{identity: peertest.NewIdentity(t)}
	e.upstream = peertest.NewUpstream(t, e.identity.Signer.JWKS())
	e.token = e.identity.Issue(t, peertest.Token{ID: 1, TenantID: "TENANT1"})
	table, err := routing.NewTable([]byte(testDoc))
	if err != nil {
		t.Fatal(err)
	}
	cfg := edge.Config{
		Table: table,
		Routes: routing.NewPrefixes([]routing.Pair{
			{Prefix: "/api/v1/contacts", Upstream: e.upstream.URL},
			{Prefix: "/l/r", Upstream: e.upstream.URL},
			{Prefix: "/l/p", Upstream: e.upstream.URL},
			{Prefix: "/l/o", Upstream: e.upstream.URL},
			{Prefix: "/webhooks/sms/inbound", Upstream: e.upstream.URL},
			{Prefix: "/dashboard", Upstream: e.upstream.URL},
		}),
		Limiter:   ratelimit.NewMemory(time.Now),
		Limits:    edge.Limits{Token: 60, IP: 30, Webhook: 120, PageIP: 300, PageLink: 30},
		Forwarder: proxy.NewForwarder(proxy.Options{}),
		Document:  []byte(testDoc),
	}
	if mod != nil {
		mod(&cfg, e)
	}
	if cfg.Resolver == nil {
		cfg.Resolver = tokens.NewResolver(client.New(e.identity.URL, nil), tokens.Options{})
	}
	app := edge.New(cfg)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = app.Listener(ln) }()
	t.Cleanup(func() { _ = app.Shutdown() })
	e.url = "http://" + ln.Addr().String()
	return e
}

// resolverFor is a resolver asking the given identity stand-in.
func resolverFor(id *peertest.Identity) *tokens.Resolver {
	return tokens.NewResolver(client.New(id.URL, nil), tokens.Options{})
}

// response is an answer with its body decoded.
type response struct {
	status int
	header http.Header
	body   []byte
	err    struct {
		Code      string `json:"code"`
		RequestID string `json:"request_id"`
	}
	echo peertest.Echo
}

type req struct {
	method, path string
	token        string // sent as Bearer when set
	auth         string // raw Authorization header when set
	body         []byte
	contentType  string
	encoding     string // Content-Encoding when set
	requestID    string
	accept       string // Accept when set
}

func do(t *testing.T, base string, r req) response {
	t.Helper()
	if r.method == "" {
		r.method = http.MethodGet
	}
	hr, err := http.NewRequest(r.method, base+r.path, bytes.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	if r.token != "" {
		hr.Header.Set("Authorization", "Bearer "+r.token)
	}
	if r.auth != "" {
		hr.Header.Set("Authorization", r.auth)
	}
	if r.contentType != "" {
		hr.Header.Set("Content-Type", r.contentType)
	}
	if r.encoding != "" {
		hr.Header.Set("Content-Encoding", r.encoding)
	}
	if r.requestID != "" {
		hr.Header.Set("X-Request-Id", r.requestID)
	}
	if r.accept != "" {
		hr.Header.Set("Accept", r.accept)
	}
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatalf("%s %s: %v", r.method, r.path, err)
	}
	return decode(t, resp)
}

// decode reads and closes resp: the error envelope when there is one, else
// what the upstream saw.
func decode(t *testing.T, resp *http.Response) response {
	t.Helper()
	defer resp.Body.Close()
	out := response{status: resp.StatusCode, header: resp.Header}
	var err error
	if out.body, err = io.ReadAll(resp.Body); err != nil {
		t.Fatal(err)
	}
	var envelope struct {
		Error *json.RawMessage `json:"error"`
	}
	if json.Unmarshal(out.body, &envelope) == nil && envelope.Error != nil {
		_ = json.Unmarshal(*envelope.Error, &out.err)
	} else {
		_ = json.Unmarshal(out.body, &out.echo)
	}
	return out
}

// wantError checks status, error.code, and that error.request_id is the
// response's X-Request-Id.
func wantError(t *testing.T, got response, status int, code string) {
	t.Helper()
	if got.status != status || got.err.Code != code {
		t.Fatalf("got %d %q (%s), want %d %s", got.status, got.err.Code, got.body, status, code)
	}
	if id := got.header.Get("X-Request-Id"); id == "" || got.err.RequestID != id {
		t.Errorf("error.request_id %q, X-Request-Id %q: want equal and set", got.err.RequestID, id)
	}
}

func jsonBody(n int) []byte {
	// {"pad":"xxxx..."} of n bytes
	return []byte(`{"pad":"` + strings.Repeat("x", n-10) + `"}`)
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
