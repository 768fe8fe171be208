package webhook

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// SecretPrefix starts every signing secret.
const SecretPrefix = "whsec_"

// secretBytes is the size of a signing key.
const secretBytes = 32

// NewSecret returns a new signing secret: "whsec_" + base64 of 32 random
// bytes (contract section 9).
func NewSecret() (string, error) {
	key := make([]byte, secretBytes)
	if _, err := rand.Read(key); err != nil {
		return "", fmt.Errorf("generating signing secret: %w", err)
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(key), nil
}

// SecretKey returns the HMAC key of a secret: the base64-decoded part after
// "whsec_".
func SecretKey(secret string) ([]byte, error) {
	b64, ok := strings.CutPrefix(secret, SecretPrefix)
	if !ok {
		return nil, errors.New("signing secret lacks the whsec_ prefix")
	}
	key, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, fmt.Errorf("decoding signing secret: %w", err)
	}
	return key, nil
}
