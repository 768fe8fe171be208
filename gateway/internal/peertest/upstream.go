package peertest

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/reqid"
)

// Echo is what Upstream received, as it answers it.
type Echo struct {
	Method         string `json:"method"`
	URI            string `json:"uri"`
	Authorization  string `json:"authorization"`
	RequestID      string `json:"request_id"`
	ForwardedProto string `json:"forwarded_proto"`
	ForwardedHost  string `json:"forwarded_host"`
	ForwardedFor   string `json:"forwarded_for"`
	ContentType    string `json:"content_type"`
	BodySHA256     string `json:"body_sha256"`
	BodyLen        int    `json:"body_len"`
	TenantID       string `json:"tenant_id"`
	TokenID        int64  `json:"token_id"`
	TraceParent    string `json:"traceparent"`
	TraceState     string `json:"tracestate"`
}

// Upstream is a service behind the gateway. Under /api/ it verifies the
// internal JWT like every Paylane service (401 unauthenticated envelope when
// it does not verify); elsewhere (hosted pages, provider callbacks, the
// admin plane) it takes the request as it comes. It answers 200 with the
// Echo and remembers every Authorization header it saw.
type Upstream struct {
	URL      string
	verifier *authz.Verifier
	mu       sync.Mutex
	seen     []string
}

// NewUpstream starts an upstream that trusts the keys of jwks.
func NewUpstream(t testing.TB, jwks []byte) *Upstream {
	t.Helper()
	v, err := authz.NewStaticVerifier(jwks)
	if err != nil {
		t.Fatal(err)
	}
	u := &Upstream{verifier: v}
	srv := httptest.NewServer(http.HandlerFunc(u.serve))
	t.Cleanup(srv.Close)
	u.URL = srv.URL
	return u
}

// Authorizations returns every Authorization header received so far.
func (u *Upstream) Authorizations() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.seen...)
}

func (u *Upstream) serve(w http.ResponseWriter, r *http.Request) {
	auth := r.Header.Get("Authorization")
	u.mu.Lock()
	u.seen = append(u.seen, auth)
	u.mu.Unlock()
	rid := r.Header.Get(reqid.Header)
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, apierr.BadRequest("unreadable body"), rid)
		return
	}
	sum := sha256.Sum256(body)
	echo := Echo{
		Method: r.Method, URI: r.RequestURI, Authorization: auth, RequestID: rid,
		ForwardedProto: r.Header.Get("X-Forwarded-Proto"), ForwardedHost: r.Header.Get("X-Forwarded-Host"),
		ForwardedFor: r.Header.Get("X-Forwarded-For"), ContentType: r.Header.Get("Content-Type"),
		BodySHA256: hex.EncodeToString(sum[:]), BodyLen: len(body),
		TraceParent: r.Header.Get("traceparent"), TraceState: r.Header.Get("tracestate"),
	}
	if strings.HasPrefix(r.URL.Path, "/api/") {
		token, _ := strings.CutPrefix(auth, "Bearer ")
		claims, err := u.verifier.Verify(r.Context(), token)
		if err != nil {
			writeError(w, apierr.Unauthenticated(), rid)
			return
		}
		echo.TenantID, echo.TokenID = claims.TenantID, claims.TokenID
	}
	w.Header().Set(reqid.Header, rid)
	writeJSON(w, http.StatusOK, echo)
}
