// Package reqid carries the request id (X-Request-Id) through a request and
// decides which client-supplied ids are echoed.
package reqid

import (
	"context"
	"regexp"

	"github.com/paylane/paylane/libs/ids"
)

// Header is the request id header on every request and response.
const Header = "X-Request-Id"

var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// Valid reports whether a client-supplied id may be echoed: at most 64
// characters and a ULID or a UUID.
func Valid(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	return ids.Valid(s) || uuidPattern.MatchString(s)
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
