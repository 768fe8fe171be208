package optin

import (
	"crypto/rand"
	"time"
)

// Code is an opt-in code: a QR-code campaign with a public landing page.
type Code struct {
	ID       string
	TenantID string
	// Code is the public part of the landing page URL, /l/o/{Code}.
	Code        string
	Name        string
	IsLive      bool
	IsDefault   bool
	DoubleOptIn bool
	ScanCount   int64
	OptInCount  int64
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// codeAlphabet spells public codes: lower-case letters and digits without
// the look-alikes 0, 1, i, l and o, so a code read off a poster is typed
// right.
const codeAlphabet = "abcdefghjkmnpqrstuvwxyz23456789"

// publicCodeLength gives 31^10 ≈ 8e14 codes: not guessable by scanning.
const publicCodeLength = 10

// NewPublicCode returns a random public code.
func NewPublicCode() string {
	b := make([]byte, publicCodeLength)
	for i := range b {
		b[i] = codeAlphabet[randIndex(len(codeAlphabet))]
	}
	return string(b)
}

// randIndex returns a uniform random index below n (n < 256) from
// crypto/rand, by rejection sampling.
func randIndex(n int) int {
	limit := 256 - 256%n
	var buf [1]byte
	for {
		_, _ = rand.Read(buf[:]) // crypto/rand.Read never fails (Go 1.24+)
		if int(buf[0]) < limit {
			return int(buf[0]) % n
		}
	}
}
