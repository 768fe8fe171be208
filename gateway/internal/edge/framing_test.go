package edge_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paylane/paylane/gateway/internal/edge"
)

// raw sends a request written byte for byte (what a normal client cannot
// produce) to the edge at base and reads the answer.
func raw(t *testing.T, base, request string) response {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// A bound on the whole exchange so a server that never answers fails
	// the test instead of hanging it.
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(conn, request); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the answer to %.60q: %v", request, err)
	}
	return decode(t, resp)
}

func TestIncompleteBodyIsRequestTimeout(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(cfg *edge.Config, _ *env) { cfg.ReadTimeout = time.Second })
	// The body announced is 100 bytes; 5 arrive, then nothing.
	got := raw(t, e.url, "POST /api/v1/contacts HTTP/1.1\r\nHost: api.test\r\nAuthorization: Bearer "+e.token+
		"\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"a\":")
	wantError(t, got, http.StatusRequestTimeout, "bad_request")
	// Headers that never end are the same.
	got = raw(t, e.url, "GET /api/v1/contacts HTTP/1.1\r\nHost: api.test\r\nX-Slow: ")
	wantError(t, got, http.StatusRequestTimeout, "bad_request")
}

func TestAbsoluteFormIsRoutedByItsPath(t *testing.T) {
	t.Parallel()
	// Another host the request names: the gateway must never call it.
	var elsewhere atomic.Int32
	other := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		elsewhere.Add(1)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = other.Serve(ln) }()
	t.Cleanup(func() { _ = other.Close() })
	e := newEnv(t, nil)
	for _, target := range []string{
		"http://" + ln.Addr().String() + "/api/v1/contacts?page=2",
		"https://" + ln.Addr().String() + "/api/v1/contacts?page=2",
		"HTTP://api.test/api/v1/contacts?page=2",
	} {
		got := raw(t, e.url, "GET "+target+" HTTP/1.1\r\nHost: api.test\r\nAuthorization: Bearer "+e.token+"\r\n\r\n")
		if got.status != http.StatusOK {
			t.Fatalf("GET %s: %d (%s), want 200 from the contacts upstream", target, got.status, got.body)
		}
		if got.echo.URI != "/api/v1/contacts?page=2" {
			t.Errorf("GET %s: upstream saw %q, want the origin form", target, got.echo.URI)
		}
	}
	// Unknown and unsafe paths in absolute form are refused like any other.
	got := raw(t, e.url, "GET http://"+ln.Addr().String()+"/nope HTTP/1.1\r\nHost: api.test\r\n\r\n")
	wantError(t, got, http.StatusNotFound, "route_not_found")
	got = raw(t, e.url, "GET http://"+ln.Addr().String()+"/api/v1/contacts/%2e%2e HTTP/1.1\r\nHost: api.test\r\nAuthorization: Bearer "+e.token+"\r\n\r\n")
	wantError(t, got, http.StatusNotFound, "route_not_found")
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the host named in the request line got %d requests, want 0", n)
	}
}

func TestUnknownMethods(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	tests := []struct {
		method, path string
		status       int
		code, allow  string
	}{
		{"PROPFIND", "/api/v1/contacts", 405, "method_not_allowed", "GET, POST"},
		{"MKCOL", "/api/v1/contacts/01JD3X0Q4Z8W2E5R7T9Y1V3K5N", 405, "method_not_allowed", "DELETE, GET, PATCH, PUT"},
		{"FOO-BAR_1", "/api/v1/healthcheck/app", 405, "method_not_allowed", "GET"},
		{"PROPFIND", "/api/v1/nope", 404, "route_not_found", ""},
		{"PROPFIND", "/", 404, "route_not_found", ""},
		{"get", "/api/v1/contacts", 405, "method_not_allowed", "GET, POST"},
	}
	for _, tt := range tests {
		got := raw(t, e.url, tt.method+" "+tt.path+" HTTP/1.1\r\nHost: api.test\r\nAuthorization: Bearer "+e.token+"\r\n\r\n")
		wantError(t, got, tt.status, tt.code)
		if allow := got.header.Get("Allow"); allow != tt.allow {
			t.Errorf("%s %s: Allow = %q, want %q", tt.method, tt.path, allow, tt.allow)
		}
	}
}

func TestMalformedRequestsGetTheEnvelope(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(cfg *edge.Config, _ *env) { cfg.ReadTimeout = time.Second })
	long := strings.Repeat("a", 10<<10)
	tests := []struct {
		name, request string
		status        int
	}{
		// fasthttp waits for the rest of a header line without a colon:
		// the read timeout ends it.
		{"header without colon", "GET /api/v1/healthcheck/app HTTP/1.1\r\nHost: api.test\r\nNoColon\r\n\r\n", 408},
		{"space in header name", "GET /api/v1/healthcheck/app HTTP/1.1\r\nHost: api.test\r\nX Bad: 1\r\n\r\n", 400},
		{"control byte in header name", "GET /api/v1/healthcheck/app HTTP/1.1\r\nHost: api.test\r\nX-Bad\x01Name: 1\r\n\r\n", 400},
		{"method not a token", "G(T /api/v1/healthcheck/app HTTP/1.1\r\nHost: api.test\r\n\r\n", 400},
		{"asterisk form", "OPTIONS * HTTP/1.1\r\nHost: api.test\r\n\r\n", 400},
		{"bad chunk", "POST /api/v1/contacts HTTP/1.1\r\nHost: api.test\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400},
		{"no request target", "GET\r\n\r\n", 400},
		{"control byte in header value", "GET /api/v1/healthcheck/app HTTP/1.1\r\nHost: api.test\r\nX-A: a\x00b\r\n\r\n", 400},
		{"bad content length", "POST /api/v1/contacts HTTP/1.1\r\nHost: api.test\r\nContent-Length: x\r\n\r\n", 400},
		// fasthttp reads the body by the last Content-Length.
		{"two content lengths", "POST /api/v1/contacts HTTP/1.1\r\nHost: api.test\r\nContent-Length: 3\r\nContent-Length: 2\r\n\r\n{}", 400},
		{"request target not a path", "GET api/v1/healthcheck/app HTTP/1.1\r\nHost: api.test\r\n\r\n", 400},
		{"request target of another scheme", "GET ftp://api.test/api/v1/healthcheck/app HTTP/1.1\r\nHost: api.test\r\n\r\n", 400},
		{"length and chunked", "POST /api/v1/contacts HTTP/1.1\r\nHost: api.test\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400},
		{"two hosts", "GET /api/v1/healthcheck/app HTTP/1.1\r\nHost: api.test\r\nHost: other.test\r\n\r\n", 400},
		{"long url", "GET /api/v1/contacts?q=" + long + " HTTP/1.1\r\nHost: api.test\r\n\r\n", 414},
		{"huge headers", "GET /api/v1/healthcheck/app HTTP/1.1\r\nHost: api.test\r\nX-Big: " + strings.Repeat("b", 40<<10) + "\r\n\r\n", 431},
		{"huge url", "GET /api/v1/contacts?q=" + strings.Repeat("a", 40<<10) + " HTTP/1.1\r\nHost: api.test\r\n\r\n", 431},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := raw(t, e.url, tt.request)
			wantError(t, got, tt.status, "bad_request")
		})
	}
}

func TestRepeatedSingletonHeaders(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	other := "pl_2|BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"
	tests := []struct{ name, headers string }{
		{"two authorizations", "Authorization: Bearer " + e.token + "\r\nAuthorization: Bearer " + other + "\r\n"},
		{"two authorizations, same value", "Authorization: Bearer " + e.token + "\r\nauthorization: Bearer " + e.token + "\r\n"},
		{"two idempotency keys", "Authorization: Bearer " + e.token + "\r\nIdempotency-Key: a\r\nIdempotency-Key: b\r\n"},
		{"two content types", "Authorization: Bearer " + e.token + "\r\nContent-Type: application/json\r\nContent-Type: text/plain\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := raw(t, e.url, "POST /api/v1/contacts HTTP/1.1\r\nHost: api.test\r\n"+tt.headers+"Content-Length: 2\r\n\r\n{}")
			wantError(t, got, http.StatusBadRequest, "bad_request")
		})
	}
	before := len(e.upstream.Authorizations())
	// One of each still passes.
	got := raw(t, e.url, "POST /api/v1/contacts HTTP/1.1\r\nHost: api.test\r\nAuthorization: Bearer "+e.token+
		"\r\nIdempotency-Key: a\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
	if got.status != http.StatusOK {
		t.Fatalf("single headers: %d (%s), want 200", got.status, got.body)
	}
	if n := len(e.upstream.Authorizations()) - before; n != 1 {
		t.Errorf("upstream got %d requests, want only the valid one", n)
	}
}
