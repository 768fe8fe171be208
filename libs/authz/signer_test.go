package authz_test

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/authz"
)

func TestJWKSShape(t *testing.T) {
	t.Parallel()
	seed := make([]byte, ed25519.SeedSize)
	seed[0] = 1
	s, err := authz.NewSigner(seed)
	if err != nil {
		t.Fatal(err)
	}
	var set struct {
		Keys []map[string]string `json:"keys"`
	}
	if err := json.Unmarshal(s.JWKS(), &set); err != nil {
		t.Fatalf("JWKS is not JSON: %v", err)
	}
	pub := ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)
	want := []map[string]string{{
		"kty": "OKP", "crv": "Ed25519", "x": base64.RawURLEncoding.EncodeToString(pub),
		"kid": s.KeyID(), "alg": "EdDSA", "use": "sig",
	}}
	if diff := cmp.Diff(want, set.Keys); diff != "" {
		t.Errorf("JWKS (-want +got):\n%s", diff)
	}
	again, err := authz.NewSigner(seed)
	if err != nil {
		t.Fatal(err)
	}
	if s.KeyID() == "" || again.KeyID() != s.KeyID() {
		t.Errorf("KeyID not stable for one seed: %q vs %q", s.KeyID(), again.KeyID())
	}
}
