package edge_test

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

	"github.com/paylane/paylane/gateway/internal/edge"
)

// compress returns b compressed by w, a gzip or zlib writer over buf.
func compress(t *testing.T, b []byte, newWriter func(io.Writer) io.WriteCloser) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := newWriter(&buf)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gzipWriter(w io.Writer) io.WriteCloser { return gzip.NewWriter(w) }
func zlibWriter(w io.Writer) io.WriteCloser { return zlib.NewWriter(w) }

// incompressible returns n bytes that gzip cannot shrink, as the body of
// an upload whose compressed size is itself above a limit.
func incompressible(n int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// TestEncodedBodiesAreRefused: a body with a Content-Encoding is 415 on
// every route, whether its compressed size is below or above the limit and
// whatever it inflates to, and the upstream never sees the request.
func TestEncodedBodiesAreRefused(t *testing.T) {
	t.Parallel()
	small := compress(t, []byte(`{"first_name":"Ada","phone":"+15555550100"}`), gzipWriter)
	// 8 MB of JSON in about 8 KB: below 1 MB sent, above 5 MB inflated.
	bomb := compress(t, jsonBody(8<<20), gzipWriter)
	// Above 1 MB as sent (and below Fiber's 5 MB): still 415, not 413.
	large := compress(t, incompressible(edge.MaxBody+(256<<10)), gzipWriter)
	if len(bomb) >= edge.MaxBody || len(large) <= edge.MaxBody {
		t.Fatalf("bodies of %d and %d bytes do not straddle the limit", len(bomb), len(large))
	}
	tests := []struct {
		name string
		r    req
	}{
		{"small gzip json", req{method: http.MethodPost, path: "/api/v1/contacts", body: small, contentType: "application/json", encoding: "gzip"}},
		{"gzip bomb to a batch route", req{method: http.MethodPost, path: "/api/v1/contacts/batch", body: bomb, contentType: "application/json", encoding: "gzip"}},
		{"gzip bomb without content type", req{method: http.MethodPut, path: "/api/v1/contacts/01JD3X0Q4Z8W2E5R7T9Y1V3K5N", body: bomb, encoding: "gzip"}},
		{"gzip above 1 MB as sent", req{method: http.MethodPost, path: "/api/v1/contacts", body: large, contentType: "application/json", encoding: "gzip"}},
		{"deflate", req{method: http.MethodPatch, path: "/api/v1/contacts/01JD3X0Q4Z8W2E5R7T9Y1V3K5N", body: compress(t, []byte(`{"a":1}`), zlibWriter), encoding: "deflate"}},
		{"br, in capitals", req{method: http.MethodPost, path: "/api/v1/contacts", body: []byte("x"), encoding: "BR"}},
		{"identity then gzip", req{method: http.MethodPost, path: "/api/v1/contacts", body: small, encoding: "identity, gzip"}},
		{"hosted page form post", req{method: http.MethodPost, path: "/l/r/x", body: compress(t, []byte("_csrf=x&cvc=123"), gzipWriter),
			contentType: "application/x-www-form-urlencoded", encoding: "gzip"}},
		{"provider form post", req{method: http.MethodPost, path: "/webhooks/sms/inbound", body: compress(t, []byte("Body=hi&From=x"), gzipWriter),
			contentType: "application/x-www-form-urlencoded", encoding: "gzip"}},
		{"get that claims an encoding", req{method: http.MethodGet, path: "/api/v1/contacts", encoding: "gzip"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, nil)
			tt.r.token = e.token
			got := do(t, e.url, tt.r)
			wantError(t, got, http.StatusUnsupportedMediaType, "bad_request")
			if !strings.Contains(string(got.body), "Content-Encoding") {
				t.Errorf("message %s does not say what to change", got.body)
			}
			if seen := e.upstream.Authorizations(); len(seen) != 0 {
				t.Errorf("the upstream received %d requests, want none", len(seen))
			}
		})
	}
}

// TestEncodedBodyWithoutTokenIsUnauthenticatedFirst: the encoding is
// checked with the body, after the token, like the size.
func TestEncodedBodyWithoutTokenIsUnauthenticatedFirst(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	got := do(t, e.url, req{method: http.MethodPost, path: "/api/v1/contacts", body: []byte("x"), encoding: "gzip"})
	wantError(t, got, http.StatusUnauthorized, "unauthenticated")
}
