package token

import (
	"crypto/rand"
	"fmt"
	"strconv"
	"strings"
)

// Prefix is the product prefix of every token.
const Prefix = "pl"

// SecretLength is the number of characters of a token's secret.
const SecretLength = 48

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// maxUnbiased is the largest multiple of len(alphabet) that fits in a byte:
// bytes at or above it are rejected so every character is equally likely.
const maxUnbiased = 256 - 256%len(alphabet)

// NewSecret returns a fresh secret of SecretLength characters drawn
// uniformly from [A-Za-z0-9] with crypto/rand.
func NewSecret() (string, error) {
	out := make([]byte, 0, SecretLength)
	buf := make([]byte, SecretLength*2)
	for len(out) < SecretLength {
		if _, err := rand.Read(buf); err != nil {
			return "", fmt.Errorf("reading random bytes: %w", err)
		}
		for _, b := range buf {
			if int(b) >= maxUnbiased {
				continue
			}
			out = append(out, alphabet[int(b)%len(alphabet)])
			if len(out) == SecretLength {
				break
			}
		}
	}
	return string(out), nil
}

// Format returns the plaintext token for an id and a secret.
func Format(id int64, secret string) string {
	return Prefix + "_" + strconv.FormatInt(id, 10) + "|" + secret
}

// Parse splits a plaintext token into its id and secret. Anything that is
// not exactly `pl_<positive integer without leading zeros>|<48 [A-Za-z0-9]>`
// is ErrMalformed.
func Parse(s string) (int64, string, error) {
	rest, ok := strings.CutPrefix(s, Prefix+"_")
	if !ok {
		return 0, "", ErrMalformed
	}
	num, secret, ok := strings.Cut(rest, "|")
	if !ok || !validNumber(num) || !validSecret(secret) {
		return 0, "", ErrMalformed
	}
	id, err := strconv.ParseInt(num, 10, 64)
	if err != nil || id <= 0 {
		return 0, "", ErrMalformed
	}
	return id, secret, nil
}

func validNumber(s string) bool {
	if s == "" || len(s) > 19 || s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func validSecret(s string) bool {
	if len(s) != SecretLength {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune(alphabet, rune(s[i])) {
			return false
		}
	}
	return true
}
