// Package reqid carries the request id (X-Request-Id) through a request and
// decides which client-supplied ids are echoed.
package reqid

import (
	"context"

	"github.com/paylane/paylane/libs/ids"
)

// Header is the request id header on every request and response.
const Header = "X-Request-Id"

// Valid reports whether a client-supplied id may be echoed: at most 64
// characters and a ULID or a UUID.
func Valid(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	return ids.Valid(s) || isUUID(s)
}

// isUUID reports whether s is a UUID in its 8-4-4-4-12 hexadecimal form.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// Resolve returns the client's id when it is valid, else a fresh ULID.
func Resolve(client string) string {
	if Valid(client) {
		return client
	}
	return ids.New()
}

type ctxKey struct{}

// With returns a context carrying the request id.
func With(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, ctxKey{}, id)
}

// From returns the request id carried by ctx, or "".
func From(ctx context.Context) string {
	id, _ := ctx.Value(ctxKey{}).(string)
	return id
}
