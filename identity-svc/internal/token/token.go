// Package token is the domain of API tokens: their plaintext format
// `pl_<id>|<secret>`, secret generation and hashing, and the checks that
// decide whether a presented token is valid. It knows neither HTTP nor SQL.
package token

import (
	"crypto/sha256"
	"crypto/subtle"
	"time"

	"github.com/paylane/paylane/libs/apierr"
)

// Validation bounds.
const (
	// MaxNameLength is the longest token name accepted.
	MaxNameLength = 120
	// TouchInterval is how stale last_used_at may get before introspection
	// writes it again: at most one write per token per interval.
	TouchInterval = time.Minute
)

var (
	// ErrMalformed is returned for a string that is not a token.
	ErrMalformed = apierr.NewSentinel("malformed token", apierr.Unauthenticated())
	// ErrInvalid is returned for a token that is unknown, whose secret does
	// not match, or that was issued by another deployment.
	ErrInvalid = apierr.NewSentinel("invalid token", apierr.Unauthenticated())
	// ErrRevoked is returned for a revoked token.
	ErrRevoked = apierr.NewSentinel("token revoked", apierr.Unauthenticated())
	// ErrExpired is returned for a token past its expiry.
	ErrExpired = apierr.NewSentinel("token expired", apierr.Unauthenticated())
	// ErrNotFound is returned when a token id names no token of the tenant.
	ErrNotFound = apierr.NewSentinel("token not found", apierr.NotFound())
)

// Token is a stored API token. The secret itself is never stored, only its
// SHA-256.
type Token struct {
	ID           int64
	TenantID     string
	Name         string
	Abilities    []string
	SecretSHA256 []byte
	ExpiresAt    *time.Time
	RevokedAt    *time.Time
	LastUsedAt   *time.Time
	CreatedAt    time.Time
}

// Hash returns the SHA-256 of a secret, the form in which it is stored.
func Hash(secret string) []byte {
	sum := sha256.Sum256([]byte(secret))
	return sum[:]
}

// Check decides whether the presented secret opens this token at now. The
// secret's hash is compared in constant time; every failure wraps one of
// ErrInvalid, ErrRevoked or ErrExpired.
func (t Token) Check(secret string, now time.Time) error {
	if subtle.ConstantTimeCompare(Hash(secret), t.SecretSHA256) != 1 {
		return ErrInvalid
	}
	if t.RevokedAt != nil {
		return ErrRevoked
	}
	if t.ExpiresAt != nil && !now.Before(*t.ExpiresAt) {
		return ErrExpired
	}
	return nil
}

// NeedsTouch reports whether last_used_at is due for a write at now.
func (t Token) NeedsTouch(now time.Time) bool {
	return t.LastUsedAt == nil || now.Sub(*t.LastUsedAt) >= TouchInterval
}
