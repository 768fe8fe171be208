package authz

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// ErrInvalidToken is wrapped by every Verify error caused by the token:
// malformed, badly signed, wrong algorithm, issuer or audience, expired, or
// signed by a key the deployment does not publish.
var ErrInvalidToken = errors.New("invalid internal token")

// ErrKeysUnavailable is wrapped by Verify errors caused by the JWKS being
// unreachable: the token may be fine, the verifier cannot tell.
var ErrKeysUnavailable = errors.New("signing keys unavailable")

const (
	// refetchInterval bounds JWKS refetches caused by unknown kids, so a
	// flood of forged tokens cannot turn into a flood of JWKS requests.
	refetchInterval = 10 * time.Second
	// failedFetchInterval is the pause after a failed fetch.
	failedFetchInterval = time.Second
	fetchTimeout        = 5 * time.Second
	maxJWKSBytes        = 1 << 20
	// maxCacheEntries bounds the verified-token cache: with tokens of
	// 1.5-4 kB, at most about 40 MB, reached only with that many distinct
	// live tokens (the gateway reuses one per API token for its lifetime).
	maxCacheEntries = 10000
)

// Verifier checks internal tokens against the keys of identity-svc's JWKS
// and caches verified tokens until they expire, so a service checks each
// token's signature once, not once per request.
type Verifier struct {
	jwksURL string
	client  *http.Client
	parser  *jwt.Parser
	now     func() time.Time

	fetchMu sync.Mutex // serialises JWKS fetches

	mu          sync.Mutex // guards the fields below
	keys        map[string]ed25519.PublicKey
	lastRefetch time.Time // last fetch caused by an unknown kid
	lastFailure time.Time // last failed fetch, zero after a success

	cacheMu sync.RWMutex
	// cache is keyed by the token itself: a map lookup hashes it far
	// faster than SHA-256 did (the hash was 2-3 % of a service's CPU on
	// the read path), and equal keys mean equal tokens, no collision to
	// reason about.
	cache map[string]*Claims
}

// NewVerifier returns a verifier that fetches the JWKS at jwksURL lazily
// (on the first token) and again when a token names an unknown kid, at most
// once per 10 s. A nil client gets one with a 5 s timeout.
func NewVerifier(jwksURL string, client *http.Client) *Verifier {
	if client == nil {
		client = &http.Client{Timeout: fetchTimeout}
	}
	v := &Verifier{jwksURL: jwksURL, client: client, now: time.Now, cache: map[string]*Claims{}}
	v.parser = jwt.NewParser(
		jwt.WithValidMethods([]string{jwt.SigningMethodEdDSA.Alg()}),
		jwt.WithIssuer(Issuer),
		jwt.WithAudience(Audience),
		jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(func() time.Time { return v.now() }),
	)
	return v
}

// NewStaticVerifier returns a verifier with a fixed JWKS that never fetches
// (tests, and processes that hold the signer themselves).
func NewStaticVerifier(jwks []byte) (*Verifier, error) {
	keys, err := parseJWKS(jwks)
	if err != nil {
		return nil, err
	}
	v := NewVerifier("", nil)
	v.keys = keys
	return v, nil
}

// Verify returns the claims of a valid token: signed with EdDSA by a key of
// the JWKS, issuer Issuer, audience Audience, not expired. Errors wrap
// ErrInvalidToken or ErrKeysUnavailable. The returned claims are the
// caller's own copy.
func (v *Verifier) Verify(ctx context.Context, token string) (*Claims, error) {
	if token == "" {
		return nil, fmt.Errorf("%w: empty token", ErrInvalidToken)
	}
	if c := v.cached(token); c != nil {
		return c, nil
	}
	claims := &Claims{}
	_, err := v.parser.ParseWithClaims(token, claims, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		if kid == "" {
			return nil, errors.New("token has no kid")
		}
		return v.key(ctx, kid)
	})
	if err != nil {
		if errors.Is(err, ErrKeysUnavailable) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %w", ErrInvalidToken, err)
	}
	v.store(token, claims)
	return cloneClaims(claims), nil
}

// cached returns a copy of the cached claims of a token that has not
// expired yet, or nil.
func (v *Verifier) cached(token string) *Claims {
	v.cacheMu.RLock()
	c, ok := v.cache[token]
	v.cacheMu.RUnlock()
	if !ok || !v.now().Before(c.ExpiresAt.Time) {
		return nil
	}
	return cloneClaims(c)
}

// store caches verified claims; when the cache is full it first drops the
// expired entries, then arbitrary ones. The token is copied: callers may
// pass a string backed by a reused request buffer (Fiber's headers).
func (v *Verifier) store(token string, c *Claims) {
	now := v.now()
	v.cacheMu.Lock()
	defer v.cacheMu.Unlock()
	if len(v.cache) >= maxCacheEntries {
		for k, e := range v.cache {
			if !now.Before(e.ExpiresAt.Time) {
				delete(v.cache, k)
			}
		}
		for k := range v.cache {
			if len(v.cache) < maxCacheEntries {
				break
			}
			delete(v.cache, k)
		}
	}
	v.cache[strings.Clone(token)] = c
}

func cloneClaims(c *Claims) *Claims {
	cp := *c
	cp.Abilities = slices.Clone(c.Abilities)
	cp.Audience = slices.Clone(c.Audience)
	return &cp
}

// key returns the public key for kid, refreshing the JWKS when kid is
// unknown.
func (v *Verifier) key(ctx context.Context, kid string) (ed25519.PublicKey, error) {
	v.mu.Lock()
	k, ok := v.keys[kid]
	v.mu.Unlock()
	if ok {
		return k, nil
	}
	if err := v.refresh(ctx, kid); err != nil {
		return nil, err
	}
	v.mu.Lock()
	k, ok = v.keys[kid]
	v.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("unknown key id %q", kid)
	}
	return k, nil
}

// refresh fetches the JWKS: the first time without limit (it is lazy), and
// for an unknown kid at most once per refetchInterval, unless another caller
// just learned kid. After a failed fetch it pauses for failedFetchInterval.
func (v *Verifier) refresh(ctx context.Context, kid string) error {
	if v.jwksURL == "" {
		return nil
	}
	v.fetchMu.Lock()
	defer v.fetchMu.Unlock()
	now := v.now()
	v.mu.Lock()
	_, known := v.keys[kid]
	loaded := v.keys != nil
	lastRefetch, lastFailure := v.lastRefetch, v.lastFailure
	v.mu.Unlock()
	switch {
	case known:
		return nil
	case loaded && !lastRefetch.IsZero() && now.Sub(lastRefetch) < refetchInterval:
		return nil // the caller reports the kid as unknown
	case !lastFailure.IsZero() && now.Sub(lastFailure) < failedFetchInterval:
		return fmt.Errorf("%w: last fetch failed", ErrKeysUnavailable)
	}
	keys, err := v.fetch(ctx)
	v.mu.Lock()
	if loaded {
		v.lastRefetch = now
	}
	if err != nil {
		v.lastFailure = now
	} else {
		v.keys, v.lastFailure = keys, time.Time{}
	}
	v.mu.Unlock()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrKeysUnavailable, err)
	}
	return nil
}

// fetch downloads and parses the JWKS. It is detached from the caller's
// cancellation: the keys serve every request, not just this one.
func (v *Verifier) fetch(ctx context.Context) (map[string]ed25519.PublicKey, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, v.jwksURL, nil)
	if err != nil {
		return nil, fmt.Errorf("building jwks request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := v.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetching jwks: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetching jwks: status %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKSBytes))
	if err != nil {
		return nil, fmt.Errorf("reading jwks: %w", err)
	}
	return parseJWKS(body)
}
