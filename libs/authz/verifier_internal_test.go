package authz

import (
	"context"
	"crypto/ed25519"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// clock is a settable time source for signer and verifier.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func newTestSigner(t testing.TB, clk *clock) *Signer {
	t.Helper()
	seed, err := GenerateSeed()
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSigner(seed)
	if err != nil {
		t.Fatal(err)
	}
	s.now = clk.Now
	return s
}

func sampleClaims() Claims {
	return Claims{
		TenantID: "01HZX3K5Q8V9W2Y4Z6A7B8C9DE", TokenID: 12,
		Abilities: []string{"api:view-contact", "api:create-contact"},
		Flags:     Flags{AIGateway: true}, Limits: Limits{APIRequestsPerMinute: 90},
		RequestID: "01HZX3K5Q8V9W2Y4Z6A7B8C9DF",
	}
}

func sign(t testing.TB, s *Signer, c Claims, ttl time.Duration) string {
	t.Helper()
	tok, _, err := s.Sign(c, ttl)
	if err != nil {
		t.Fatalf("Sign: %v", err)
	}
	return tok
}

func staticVerifier(t testing.TB, clk *clock, s *Signer) *Verifier {
	t.Helper()
	v, err := NewStaticVerifier(s.JWKS())
	if err != nil {
		t.Fatalf("NewStaticVerifier: %v", err)
	}
	v.now = clk.Now
	return v
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	clk := newClock()
	s := newTestSigner(t, clk)
	tok, exp, err := s.Sign(sampleClaims(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if want := clk.Now().Add(time.Minute); !exp.Equal(want) {
		t.Errorf("expires = %v, want %v", exp, want)
	}
	got, err := staticVerifier(t, clk, s).Verify(context.Background(), tok)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	want := sampleClaims()
	if diff := cmp.Diff(want, *got, cmpopts.IgnoreFields(Claims{}, "RegisteredClaims")); diff != "" {
		t.Errorf("claims (-want +got):\n%s", diff)
	}
	if got.Issuer != Issuer || len(got.Audience) != 1 || got.Audience[0] != Audience {
		t.Errorf("iss/aud = %q/%v", got.Issuer, got.Audience)
	}
	if !got.ExpiresAt.Equal(exp) || !got.IssuedAt.Equal(clk.Now()) {
		t.Errorf("iat/exp = %v/%v", got.IssuedAt, got.ExpiresAt)
	}
}

func TestSignRejectsBadInput(t *testing.T) {
	t.Parallel()
	if _, err := NewSigner(make([]byte, 31)); err == nil {
		t.Error("NewSigner accepted a 31-byte seed")
	}
	s := newTestSigner(t, newClock())
	if _, _, err := s.Sign(sampleClaims(), 0); err == nil {
		t.Error("Sign accepted a zero ttl")
	}
}

// forge signs claims with an arbitrary method and key, bypassing Signer.
func forge(t *testing.T, method jwt.SigningMethod, key any, kid string, c jwt.Claims) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, c)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatalf("forging token: %v", err)
	}
	return s
}

func TestVerifyRejects(t *testing.T) {
	t.Parallel()
	clk := newClock()
	s := newTestSigner(t, clk)
	other := newTestSigner(t, clk)
	now := clk.Now()
	valid := func(mut func(*Claims)) *Claims {
		c := sampleClaims()
		c.Issuer, c.Audience = Issuer, jwt.ClaimStrings{Audience}
		c.IssuedAt, c.ExpiresAt = jwt.NewNumericDate(now), jwt.NewNumericDate(now.Add(time.Minute))
		mut(&c)
		return &c
	}
	// The same key, two minutes in the past.
	expired := &Signer{key: s.key, pub: s.pub, kid: s.kid, now: func() time.Time { return now.Add(-2 * time.Minute) }}

	tests := []struct {
		name  string
		token string
	}{
		{"empty", ""},
		{"garbage", "not.a.jwt"},
		{"another deployment's key", sign(t, other, sampleClaims(), time.Minute)},
		{"another key under our kid", forge(t, jwt.SigningMethodEdDSA, other.key, s.kid, valid(func(*Claims) {}))},
		{"expired", sign(t, expired, sampleClaims(), time.Minute)},
		{"no exp", forge(t, jwt.SigningMethodEdDSA, s.key, s.kid, valid(func(c *Claims) { c.ExpiresAt = nil }))},
		{"wrong issuer", forge(t, jwt.SigningMethodEdDSA, s.key, s.kid, valid(func(c *Claims) { c.Issuer = "someone" }))},
		{"wrong audience", forge(t, jwt.SigningMethodEdDSA, s.key, s.kid, valid(func(c *Claims) { c.Audience = jwt.ClaimStrings{"other"} }))},
		{"no kid", forge(t, jwt.SigningMethodEdDSA, s.key, "", valid(func(*Claims) {}))},
		{"HS256 with the public key", forge(t, jwt.SigningMethodHS256, []byte(s.pub), s.kid, valid(func(*Claims) {}))},
		{"alg none", forge(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, s.kid, valid(func(*Claims) {}))},
	}
	v := staticVerifier(t, clk, s)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := v.Verify(context.Background(), tt.token)
			if !errors.Is(err, ErrInvalidToken) {
				t.Errorf("Verify error = %v, want ErrInvalidToken", err)
			}
		})
	}
}

// jwksServer serves the JWKS of the given signers (changeable) and counts
// fetches.
type jwksServer struct {
	mu      sync.Mutex
	signers []*Signer
	fail    bool
	fetches atomic.Int32
}

func (j *jwksServer) set(fail bool, signers ...*Signer) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.signers, j.fail = signers, fail
}

func (j *jwksServer) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	j.fetches.Add(1)
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.fail {
		http.Error(w, "down", http.StatusInternalServerError)
		return
	}
	set := jwkSet{}
	for _, s := range j.signers {
		set.Keys = append(set.Keys, publicJWK(s.pub, s.kid))
	}
	w.Header().Set("Content-Type", "application/json")
	if err := jsonEncode(w, set); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

func TestUnknownKidRefetchesOnce(t *testing.T) {
	t.Parallel()
	clk := newClock()
	a, b, c := newTestSigner(t, clk), newTestSigner(t, clk), newTestSigner(t, clk)
	js := &jwksServer{}
	js.set(false, a)
	srv := httptest.NewServer(js)
	t.Cleanup(srv.Close)
	v := NewVerifier(srv.URL, srv.Client())
	v.now = clk.Now
	ctx := context.Background()

	if _, err := v.Verify(ctx, sign(t, a, sampleClaims(), time.Hour)); err != nil {
		t.Fatalf("token of a: %v", err)
	}
	if n := js.fetches.Load(); n != 1 {
		t.Fatalf("fetches after first token = %d, want 1 (lazy)", n)
	}
	js.set(false, a, b) // identity-svc rotates in key b
	if _, err := v.Verify(ctx, sign(t, b, sampleClaims(), time.Hour)); err != nil {
		t.Fatalf("token of rotated-in key b: %v", err)
	}
	if n := js.fetches.Load(); n != 2 {
		t.Fatalf("fetches after unknown kid = %d, want 2", n)
	}
	for range 3 {
		if _, err := v.Verify(ctx, sign(t, c, sampleClaims(), time.Hour)); !errors.Is(err, ErrInvalidToken) {
			t.Fatalf("token of unpublished key c: err = %v, want ErrInvalidToken", err)
		}
	}
	if n := js.fetches.Load(); n != 2 {
		t.Fatalf("fetches after unknown kids within 10 s = %d, want still 2", n)
	}
	clk.Advance(11 * time.Second)
	if _, err := v.Verify(ctx, sign(t, c, sampleClaims(), time.Hour)); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("token of c after 11 s: err = %v, want ErrInvalidToken", err)
	}
	if n := js.fetches.Load(); n != 3 {
		t.Fatalf("fetches after 11 s = %d, want 3", n)
	}
}

func TestKeysUnavailable(t *testing.T) {
	t.Parallel()
	clk := newClock()
	a := newTestSigner(t, clk)
	js := &jwksServer{}
	js.set(true)
	srv := httptest.NewServer(js)
	t.Cleanup(srv.Close)
	v := NewVerifier(srv.URL, srv.Client())
	v.now = clk.Now
	tok := sign(t, a, sampleClaims(), time.Hour)

	if _, err := v.Verify(context.Background(), tok); !errors.Is(err, ErrKeysUnavailable) {
		t.Fatalf("err = %v, want ErrKeysUnavailable", err)
	}
	js.set(false, a)
	clk.Advance(2 * time.Second) // past the pause after a failed fetch
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatalf("after recovery: %v", err)
	}
}

func TestCacheSkipsSecondVerification(t *testing.T) {
	t.Parallel()
	clk := newClock()
	s := newTestSigner(t, clk)
	v := staticVerifier(t, clk, s)
	tok := sign(t, s, sampleClaims(), time.Minute)
	first, err := v.Verify(context.Background(), tok)
	if err != nil {
		t.Fatal(err)
	}
	first.Abilities[0] = "api:mutated-by-caller"

	// Without keys, only the cache can answer.
	v.mu.Lock()
	v.keys = map[string]ed25519.PublicKey{}
	v.mu.Unlock()
	second, err := v.Verify(context.Background(), tok)
	if err != nil {
		t.Fatalf("second Verify did not come from the cache: %v", err)
	}
	if diff := cmp.Diff(sampleClaims().Abilities, second.Abilities); diff != "" {
		t.Errorf("cached claims changed by a caller (-want +got):\n%s", diff)
	}
	clk.Advance(time.Minute)
	if _, err := v.Verify(context.Background(), tok); !errors.Is(err, ErrInvalidToken) {
		t.Errorf("Verify at exp = %v, want ErrInvalidToken (cache must not outlive exp)", err)
	}
}

func TestCacheAnswersOnlyTheSameToken(t *testing.T) {
	t.Parallel()
	clk := newClock()
	s := newTestSigner(t, clk)
	v := staticVerifier(t, clk, s)
	tok := sign(t, s, sampleClaims(), time.Minute)
	// The token arrives in a buffer that is reused once Verify returns, as
	// Fiber's header strings are.
	buf := []byte(tok)
	if _, err := v.Verify(context.Background(), unsafe.String(&buf[0], len(buf))); err != nil {
		t.Fatal(err)
	}
	copy(buf, strings.Repeat("x", len(buf)))

	// One character inside the signature changed: not the cached token.
	i, swap := len(tok)-10, byte('A')
	if tok[i] == 'A' {
		swap = 'B'
	}
	tampered := tok[:i] + string(swap) + tok[i+1:]
	if _, err := v.Verify(context.Background(), tampered); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("Verify(tampered signature) = %v, want ErrInvalidToken", err)
	}
	// Without keys, only the cache can answer, under the token's own value.
	v.mu.Lock()
	v.keys = map[string]ed25519.PublicKey{}
	v.mu.Unlock()
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatalf("the cached token after its buffer was reused: %v", err)
	}
}

func BenchmarkVerifyCached(b *testing.B) {
	clk := newClock()
	s := newTestSigner(b, clk)
	v := staticVerifier(b, clk, s)
	claims := sampleClaims()
	claims.Abilities = All() // an internal token of realistic size
	tok := sign(b, s, claims, time.Hour)
	ctx := context.Background()
	if _, err := v.Verify(ctx, tok); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.Verify(ctx, tok); err != nil {
			b.Fatal(err)
		}
	}
}
