// Package sealer encrypts secrets at rest (webhook signing secrets, payment
// provider keys) with AES-256-GCM under a key from the service's
// configuration. Each ciphertext is bound to its row by additional data, so
// a sealed secret copied to another row does not open.
package sealer

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
)

// KeySize is the size of the encryption key (AES-256).
const KeySize = 32

// version prefixes every ciphertext so a later key or algorithm can be told apart.
const version byte = 1

// ErrOpen reports a ciphertext that does not open under the key.
var ErrOpen = errors.New("sealer: ciphertext does not open")

// Sealer seals and opens secrets. It is safe for concurrent use.
type Sealer struct {
	aead cipher.AEAD
}

// New returns a sealer for a 32-byte key.
func New(key []byte) (*Sealer, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("sealer: key must be %d bytes, got %d", KeySize, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("sealer: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("sealer: %w", err)
	}
	return &Sealer{aead: aead}, nil
}

// Seal encrypts plaintext bound to aad: version, random nonce, ciphertext.
func (s *Sealer) Seal(plaintext, aad []byte) ([]byte, error) {
	out := make([]byte, 1+s.aead.NonceSize(), 1+s.aead.NonceSize()+len(plaintext)+s.aead.Overhead())
	out[0] = version
	if _, err := rand.Read(out[1:]); err != nil {
		return nil, fmt.Errorf("sealer: nonce: %w", err)
	}
	return s.aead.Seal(out, out[1:], plaintext, aad), nil
}

// Open decrypts what Seal returned for the same aad.
func (s *Sealer) Open(sealed, aad []byte) ([]byte, error) {
	n := s.aead.NonceSize()
	if len(sealed) < 1+n+s.aead.Overhead() || sealed[0] != version {
		return nil, ErrOpen
	}
	plain, err := s.aead.Open(nil, sealed[1:1+n], sealed[1+n:], aad)
	if err != nil {
		return nil, ErrOpen
	}
	return plain, nil
}
