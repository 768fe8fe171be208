// Package idemscope holds the API-wide scope of Idempotency-Keys (contract
// section 3: tenant + key across the whole API). Each service keeps its own
// idempotency records, so a key first used on one service's route and then
// on another's would reach a service that has never seen it; the gateway
// binds (tenant, key) to the service that first received the key and
// refuses the key on any other service's route.
//
// Bindings are kept as long as the services keep their records (24 h). In
// Redis they are shared by every gateway replica; in memory they hold for
// one replica only (devstack, a single gateway).
package idemscope

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// TTL is how long a binding lasts: the services' retention of a key.
const TTL = 24 * time.Hour

// Store binds scopes to owners.
type Store interface {
	// Bind binds scope to owner unless the scope is bound already, and
	// returns the owner the scope is bound to (owner itself the first
	// time). An error means the store could not answer.
	Bind(ctx context.Context, scope, owner string) (string, error)
}

// Scope is the store key of a tenant's Idempotency-Key: a SHA-256, so a
// key's length or characters never reach the store.
func Scope(tenantID, key string) string {
	h := sha256.New()
	h.Write([]byte(tenantID))
	h.Write([]byte{0})
	h.Write([]byte(key))
	return hex.EncodeToString(h.Sum(nil))
}
