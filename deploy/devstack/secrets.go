package devstack

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Secrets are the deployment secrets of the local stack, generated once with
// crypto/rand and kept in Root/secrets.json (mode 0600) so tokens, signed
// links and encrypted webhook secrets stay valid across restarts.
type Secrets struct {
	// SigningKey is the 32-byte Ed25519 seed of identity-svc's internal JWTs.
	SigningKey []byte `json:"signing_key"`
	// AdminToken authenticates the operator plane.
	AdminToken string `json:"admin_token"`
	// LinkKey is the HMAC key of signed payment and payout links.
	LinkKey []byte `json:"link_key"`
	// WebhookEncryptionKey encrypts webhook signing secrets at rest.
	WebhookEncryptionKey []byte `json:"webhook_encryption_key"`
	// RailEncryptionKey encrypts the tenants' payment-provider keys at rest.
	RailEncryptionKey []byte `json:"rail_encryption_key"`
	// SMSAuthToken signs the SMS provider's inbound callbacks.
	SMSAuthToken string `json:"sms_auth_token"`
	// ServiceSecret lets services ask identity-svc for internal tokens
	// outside a user request (background work, hosted pages).
	ServiceSecret string `json:"service_secret"`
}

// keySize is the size of every generated binary key.
const keySize = 32

// LoadOrCreateSecrets reads path, generating and saving whatever is missing
// or malformed (all of it on the first start).
func LoadOrCreateSecrets(path string) (Secrets, error) {
	var s Secrets
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		if err := json.Unmarshal(data, &s); err != nil {
			return Secrets{}, fmt.Errorf("reading %s (remove it to start over): %w", path, err)
		}
	case errors.Is(err, fs.ErrNotExist):
	default:
		return Secrets{}, fmt.Errorf("reading secrets: %w", err)
	}
	changed, err := s.fill()
	if err != nil {
		return Secrets{}, err
	}
	if changed {
		if err := writeJSON(path, s, 0o600); err != nil {
			return Secrets{}, err
		}
	}
	if err := os.Chmod(path, 0o600); err != nil {
		return Secrets{}, fmt.Errorf("chmod secrets: %w", err)
	}
	return s, nil
}

// fill generates every missing or malformed secret and reports whether it
// changed anything.
func (s *Secrets) fill() (bool, error) {
	changed := false
	for _, k := range []*[]byte{&s.SigningKey, &s.LinkKey, &s.WebhookEncryptionKey, &s.RailEncryptionKey} {
		if len(*k) == keySize {
			continue
		}
		b, err := randomBytes(keySize)
		if err != nil {
			return false, err
		}
		*k, changed = b, true
	}
	if s.AdminToken == "" {
		b, err := randomBytes(keySize)
		if err != nil {
			return false, err
		}
		s.AdminToken, changed = "pladm_"+base64.RawURLEncoding.EncodeToString(b), true
	}
	if s.ServiceSecret == "" {
		b, err := randomBytes(keySize)
		if err != nil {
			return false, err
		}
		s.ServiceSecret, changed = base64.RawURLEncoding.EncodeToString(b), true
	}
	if s.SMSAuthToken == "" {
		b, err := randomBytes(16)
		if err != nil {
			return false, err
		}
		s.SMSAuthToken, changed = hex.EncodeToString(b), true
	}
	return changed, nil
}

func randomBytes(n int) ([]byte, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("generating secret: %w", err)
	}
	return b, nil
}
