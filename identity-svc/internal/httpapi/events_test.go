package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/identity-svc/internal/testenv"
	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/outbox"
	"github.com/paylane/paylane/libs/testkit"
)

// relay publishes the env's outbox to a fresh broker until the test ends.
func (e *env) relay(t *testing.T) []string {
	t.Helper()
	brokers := testkit.Broker(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- outbox.NewRelay(e.db.Pool, brokers, nil).Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && ctx.Err() == nil {
			t.Errorf("relay: %v", err)
		}
	})
	return brokers
}

func TestRevokePublishesTokenRevoked(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	brokers := e.relay(t)
	tenantID := e.createTenant(t, `{"name":"Acme"}`)
	id, _ := e.createToken(t, tenantID, `{"name":"ci","abilities":["api:view-contact"]}`)
	const requestID = "01J00000000000000000000REQ"
	r := e.callWithHeaders(t, http.MethodDelete, fmt.Sprintf("/admin/v1/tenants/%s/tokens/%d", tenantID, id), map[string]string{
		"Authorization": "Bearer " + adminToken, "X-Request-Id": requestID,
	})
	expect(t, r, http.StatusNoContent, "")

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	env := testenv.ReadEvent(ctx, t, brokers, testenv.OfType(events.TypeTokenRevoked))
	var data events.TokenRevoked
	if err := env.Decode(&data); err != nil {
		t.Fatal(err)
	}
	if data.TokenID != id || data.TenantID != tenantID || env.TenantID != tenantID || env.RequestID != requestID {
		t.Errorf("event %+v with data %+v, want token %d of %s from request %s", env, data, id, tenantID, requestID)
	}
}

func TestPatchPublishesTenantUpdated(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	brokers := e.relay(t)
	tenantID := e.createTenant(t, `{"name":"Acme"}`)
	expect(t, e.call(t, http.MethodPatch, "/admin/v1/tenants/"+tenantID, `{"flags":{"ai_gateway":true}}`), http.StatusOK, "")

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// The create announced the tenant first; wait for the state after the PATCH.
	var data client.Tenant
	env := testenv.ReadEvent(ctx, t, brokers, func(env events.Envelope) bool {
		return env.Type == events.TypeTenantUpdated && env.Decode(&data) == nil && data.Flags.AIGateway
	})
	if data.ID != tenantID || env.TenantID != tenantID || data.Name != "Acme" {
		t.Errorf("tenant.updated %+v about %+v, want tenant %s", env, data, tenantID)
	}
}
