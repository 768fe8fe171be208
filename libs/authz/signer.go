package authz

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Algorithm is the JWS algorithm of internal tokens.
const Algorithm = "EdDSA"

// Signer issues internal tokens with the deployment's Ed25519 key. Only
// identity-svc holds one; every other service verifies with its JWKS.
type Signer struct {
	key ed25519.PrivateKey
	pub ed25519.PublicKey
	kid string
	now func() time.Time
}

// GenerateSeed returns a fresh random 32-byte Ed25519 seed.
func GenerateSeed() ([]byte, error) {
	seed := make([]byte, ed25519.SeedSize)
	if _, err := rand.Read(seed); err != nil {
		return nil, fmt.Errorf("generating signing seed: %w", err)
	}
	return seed, nil
}

// NewSigner returns a signer for the 32-byte Ed25519 seed.
func NewSigner(seed []byte) (*Signer, error) {
	if len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("signing seed must be %d bytes, got %d", ed25519.SeedSize, len(seed))
	}
	key := ed25519.NewKeyFromSeed(seed)
	pub, ok := key.Public().(ed25519.PublicKey)
	if !ok {
		return nil, errors.New("deriving ed25519 public key")
	}
	return &Signer{key: key, pub: pub, kid: thumbprint(pub), now: time.Now}, nil
}

// KeyID is the kid of the signer's key: its RFC 7638 JWK thumbprint, so it
// changes exactly when the key does.
func (s *Signer) KeyID() string { return s.kid }

// Sign returns a token for c valid for ttl. It sets iss, aud, iat and exp
// (overriding what c holds) and the kid header; expires is the token's exp.
func (s *Signer) Sign(c Claims, ttl time.Duration) (token string, expires time.Time, err error) {
	if ttl <= 0 {
		return "", time.Time{}, fmt.Errorf("token ttl must be positive, got %s", ttl)
	}
	now := s.now()
	c.Issuer = Issuer
	c.Audience = jwt.ClaimStrings{Audience}
	c.IssuedAt = jwt.NewNumericDate(now)
	c.ExpiresAt = jwt.NewNumericDate(now.Add(ttl))
	t := jwt.NewWithClaims(jwt.SigningMethodEdDSA, &c)
	t.Header["kid"] = s.kid
	token, err = t.SignedString(s.key)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("signing internal token: %w", err)
	}
	return token, c.ExpiresAt.Time, nil
}

// JWKS returns the JSON Web Key Set holding the signer's public key, as
// identity-svc serves it at /internal/v1/jwks.
func (s *Signer) JWKS() []byte {
	b, err := json.Marshal(jwkSet{Keys: []jwk{publicJWK(s.pub, s.kid)}})
	if err != nil { // a struct of strings always encodes
		panic(fmt.Sprintf("authz: encoding jwks: %v", err))
	}
	return b
}

// jwk is one JSON Web Key of an Ed25519 public key (RFC 8037).
type jwk struct {
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Kid string `json:"kid,omitempty"`
	Alg string `json:"alg,omitempty"`
	Use string `json:"use,omitempty"`
}

// jwkSet is a JSON Web Key Set.
type jwkSet struct {
	Keys []jwk `json:"keys"`
}

func publicJWK(pub ed25519.PublicKey, kid string) jwk {
	return jwk{Kty: "OKP", Crv: "Ed25519", X: base64.RawURLEncoding.EncodeToString(pub), Kid: kid, Alg: Algorithm, Use: "sig"}
}

// thumbprint is the RFC 7638 thumbprint of an Ed25519 public key: SHA-256
// of the required members in lexicographic order, base64url.
func thumbprint(pub ed25519.PublicKey) string {
	canonical := `{"crv":"Ed25519","kty":"OKP","x":"` + base64.RawURLEncoding.EncodeToString(pub) + `"}`
	sum := sha256.Sum256([]byte(canonical))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// parseJWKS returns the usable Ed25519 signing keys of a JWKS by kid; keys
// of other types, curves or uses are skipped.
func parseJWKS(b []byte) (map[string]ed25519.PublicKey, error) {
	var set jwkSet
	if err := json.Unmarshal(b, &set); err != nil {
		return nil, fmt.Errorf("decoding jwks: %w", err)
	}
	keys := make(map[string]ed25519.PublicKey, len(set.Keys))
	for _, k := range set.Keys {
		if k.Kty != "OKP" || k.Crv != "Ed25519" || k.Kid == "" ||
			(k.Alg != "" && k.Alg != Algorithm) || (k.Use != "" && k.Use != "sig") {
			continue
		}
		x, err := base64.RawURLEncoding.DecodeString(k.X)
		if err != nil || len(x) != ed25519.PublicKeySize {
			continue
		}
		keys[k.Kid] = ed25519.PublicKey(x)
	}
	if len(keys) == 0 {
		return nil, errors.New("jwks holds no ed25519 signing key")
	}
	return keys, nil
}
