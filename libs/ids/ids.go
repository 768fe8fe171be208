// Package ids makes and checks the ULIDs that identify every resource.
package ids

import (
	"crypto/rand"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"
)

// New returns a new ULID string: 26 upper-case Crockford characters.
func New() string { return NewAt(time.Now()) }

// NewAt returns a new ULID string with the given time component.
func NewAt(t time.Time) string {
	return ulid.MustNew(ulid.Timestamp(t), rand.Reader).String()
}

// Valid reports whether s is a canonical ULID (26 characters, upper case).
func Valid(s string) bool {
	if len(s) != ulid.EncodedSize || strings.ToUpper(s) != s {
		return false
	}
	_, err := ulid.ParseStrict(s)
	return err == nil
}
