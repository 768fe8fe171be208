// Package app holds webhook-svc's use cases for the API, one per file. A use
// case validates with the domain's rules, opens one tenant-scoped
// transaction (store.Write or store.Read) and decides and writes in it. It
// knows nothing of HTTP.
package app

import (
	"time"

	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/sealer"
	"github.com/paylane/paylane/webhook-svc/internal/store"
	"github.com/paylane/paylane/webhook-svc/internal/webhook"
)

// App runs the use cases.
type App struct {
	store  *store.Store
	sealer *sealer.Sealer
	now    func() time.Time
}

// New returns the use cases on a store; sealer encrypts signing secrets and
// now is the clock (time.Now when nil).
func New(s *store.Store, sl *sealer.Sealer, now func() time.Time) *App {
	if now == nil {
		now = time.Now
	}
	return &App{store: s, sealer: sl, now: now}
}

// Page selects part of a collection.
type Page struct {
	Limit, Offset int
}

// timestamp returns now as Postgres keeps it (UTC, microseconds).
func (a *App) timestamp() time.Time {
	return a.now().UTC().Truncate(time.Microsecond)
}

// checkID answers ErrNotFound for an id that is not a ULID, before any query.
func checkID(id string) error {
	if !ids.Valid(id) {
		return webhook.ErrNotFound
	}
	return nil
}

// AAD is the additional data that binds a sealed secret to its endpoint.
func AAD(tenantID, endpointID string) []byte {
	return []byte(tenantID + "/" + endpointID)
}

// seal encrypts a new secret for an endpoint.
func (a *App) seal(tenantID, endpointID, secret string) ([]byte, error) {
	return a.sealer.Seal([]byte(secret), AAD(tenantID, endpointID))
}
