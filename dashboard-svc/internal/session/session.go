// Package session holds the dashboard's sessions: a random id the browser
// keeps in a cookie (stored only as its SHA-256), the signed-in user and
// tenant, a CSRF token, and the idle expiry. No HTTP, no SQL.
package session

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"time"
)

// IdleTimeout ends a session not used for this long.
const IdleTimeout = 12 * time.Hour

// TouchInterval is how stale last_seen_at may get before a request writes
// it again: at most one write per session per interval.
const TouchInterval = time.Minute

// ErrNotFound: no live session has this id.
var ErrNotFound = errors.New("session not found")

// Session is a signed-in browser.
type Session struct {
	IDHash     []byte
	TenantID   string
	UserID     string
	CSRFToken  string
	CreatedAt  time.Time
	LastSeenAt time.Time
}

// Expired reports whether the session has been idle past IdleTimeout at now.
func (s Session) Expired(now time.Time) bool { return !now.Before(s.LastSeenAt.Add(IdleTimeout)) }

// NeedsTouch reports whether last_seen_at should be written at now.
func (s Session) NeedsTouch(now time.Time) bool { return now.Sub(s.LastSeenAt) >= TouchInterval }

// NewSecret returns 32 random bytes, URL-safe base64 encoded.
func NewSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("reading random bytes: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// Hash is the stored form of a session id.
func Hash(id string) []byte {
	h := sha256.Sum256([]byte(id))
	return h[:]
}

// SameToken compares two CSRF tokens in constant time; an empty one
// matches nothing.
func SameToken(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	ha, hb := sha256.Sum256([]byte(a)), sha256.Sum256([]byte(b))
	return subtle.ConstantTimeCompare(ha[:], hb[:]) == 1
}
