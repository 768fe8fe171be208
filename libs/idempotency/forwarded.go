package idempotency

import (
	"context"
	"net/http"
)

// Forwarded is what the owning service answered about an Idempotency-Key a
// service forwarded to it (ai-gateway-svc writes through contacts-svc and
// transactions-svc): whether the answer was a replay, and the first
// request's id. The forwarding service passes both on to its caller.
type Forwarded struct {
	Replayed          bool
	OriginalRequestID string
}

type forwardedKey struct{}

// WithForwarded returns a context in which service clients record, through
// NoteForwarded, the replay headers of the answers they receive, and the
// record they fill.
func WithForwarded(ctx context.Context) (context.Context, *Forwarded) {
	f := &Forwarded{}
	return context.WithValue(ctx, forwardedKey{}, f), f
}

// NoteForwarded records h's Idempotent-Replayed and Original-Request-Id in
// the Forwarded of ctx, if it has one and the answer was a replay. Service
// clients call it for every answer they receive.
func NoteForwarded(ctx context.Context, h http.Header) {
	f, ok := ctx.Value(forwardedKey{}).(*Forwarded)
	if !ok || h.Get(HeaderReplayed) != "true" {
		return
	}
	f.Replayed, f.OriginalRequestID = true, h.Get(HeaderOriginalRequestID)
}
