// Package peertest holds the HTTP peers the gateway's tests talk to: an
// identity-svc stand-in that speaks the introspection contract and signs
// internal JWTs with authz.Signer, and an upstream service that verifies
// them with authz.NewStaticVerifier and echoes what it received. They stand
// for the peers' wire contracts only; the gateway runs for real.
package peertest

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/reqid"
	"github.com/paylane/paylane/libs/testkit"
)

// InternalTokenTTL is the lifetime of the internal JWTs Identity issues.
const InternalTokenTTL = 60 * time.Second

// Identity answers POST /internal/v1/introspect like identity-svc.
type Identity struct {
	URL    string
	Signer *authz.Signer
	srv    *httptest.Server
	calls  atomic.Int64
	mu     sync.Mutex
	tokens map[string]Token
}

// Token is what Identity knows about an issued token.
type Token struct {
	ID       int64
	TenantID string
	Limits   authz.Limits
}

// NewIdentity starts an identity stand-in with a fresh signing key (its own
// deployment), closed at cleanup.
func NewIdentity(t testing.TB) *Identity {
	t.Helper()
	id := &Identity{Signer: testkit.NewSigner(t), tokens: map[string]Token{}}
	id.srv = httptest.NewServer(http.HandlerFunc(id.introspect))
	id.URL = id.srv.URL
	t.Cleanup(id.srv.Close)
	return id
}

// Issue mints a token pl_<id>|<48 letters and digits> for the tenant.
func (i *Identity) Issue(t testing.TB, tok Token) string {
	t.Helper()
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	secret := make([]byte, 48)
	for k := range secret {
		n, err := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
		if err != nil {
			t.Fatal(err)
		}
		secret[k] = alphabet[n.Int64()]
	}
	token := fmt.Sprintf("pl_%d|%s", tok.ID, secret)
	i.mu.Lock()
	defer i.mu.Unlock()
	i.tokens[token] = tok
	return token
}

// Revoke makes identity refuse the token from now on.
func (i *Identity) Revoke(token string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	delete(i.tokens, token)
}

// Calls is the number of introspections answered.
func (i *Identity) Calls() int64 { return i.calls.Load() }

// Close stops the server: identity-svc is unreachable.
func (i *Identity) Close() { i.srv.Close() }

func (i *Identity) introspect(w http.ResponseWriter, r *http.Request) {
	i.calls.Add(1)
	rid := reqid.Resolve(r.Header.Get(reqid.Header))
	if r.Method != http.MethodPost || r.URL.Path != "/internal/v1/introspect" {
		writeError(w, apierr.RouteNotFound(), rid)
		return
	}
	var in struct {
		Token string `json:"token"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeError(w, apierr.BadRequest("bad json"), rid)
		return
	}
	i.mu.Lock()
	tok, ok := i.tokens[in.Token]
	i.mu.Unlock()
	if !ok {
		writeError(w, apierr.Unauthenticated(), rid)
		return
	}
	jwt, exp, err := i.Signer.Sign(authz.Claims{TenantID: tok.TenantID, TokenID: tok.ID,
		Abilities: []string{"api:view-any-contact"}, Limits: tok.Limits}, InternalTokenTTL)
	if err != nil {
		writeError(w, apierr.Internal(), rid)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{
		"tenant_id": tok.TenantID, "token_id": tok.ID, "abilities": []string{"api:view-any-contact"},
		"flags": authz.Flags{}, "limits": tok.Limits,
		"internal_token": jwt, "internal_token_expires_at": exp,
	}})
}

func writeError(w http.ResponseWriter, e *apierr.Error, requestID string) {
	w.Header().Set(reqid.Header, requestID)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.Status)
	_, _ = w.Write(e.Marshal(requestID))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
