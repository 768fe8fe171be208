package clientcontract_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/webhook-svc/client"
	"github.com/paylane/paylane/webhook-svc/internal/ingest"
	"github.com/paylane/paylane/webhook-svc/internal/store"
	"github.com/paylane/paylane/webhook-svc/internal/testenv"
)

// TestEndpointDetailCalls runs the calls of the dashboard's endpoint page
// against the real service: read, rotate the secret, the delivery history,
// the recent failures across endpoints and re-enabling.
func TestEndpointDetailCalls(t *testing.T) {
	t.Parallel()
	rc := testenv.NewReceiver(t, func(_ int, w http.ResponseWriter, _ testenv.Request) { w.WriteHeader(http.StatusServiceUnavailable) })
	svc := testenv.StartService(t, testenv.ServiceOptions{Allow: testenv.Loopback(), Roots: rc.Roots()})
	c := client.New("http://"+svc.Addrs.HTTP, nil)
	ctx := context.Background()
	tenant := ids.New()
	token := svc.Token(t, tenant, "api:view-any-webhook", "api:view-webhook", "api:create-webhook", "api:update-webhook")
	created, err := c.CreateEndpoint(ctx, token, "", client.EndpointInput{Name: "orders", URL: rc.URL(), SubscribedEvents: []string{"contact.*"}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Endpoint(ctx, token, created.ID)
	if err != nil || got.ID != created.ID || got.SigningSecret != "" || !got.IsActive {
		t.Fatalf("Endpoint = %+v, %v", got, err)
	}
	if _, err := c.Endpoint(ctx, token, ids.New()); client.StatusOf(err) != 404 {
		t.Errorf("unknown endpoint = %v, want 404", err)
	}
	if _, err := c.Endpoint(ctx, svc.Token(t, ids.New(), "api:view-webhook"), created.ID); client.StatusOf(err) != 404 {
		t.Errorf("another tenant's endpoint = %v, want 404", err)
	}

	key := "rotate-" + ids.New()
	rotated, err := c.RotateSecret(ctx, token, key, created.ID)
	if err != nil || !strings.HasPrefix(rotated.SigningSecret, "whsec_") || rotated.SigningSecret == created.SigningSecret {
		t.Fatalf("RotateSecret = %+v, %v", rotated, err)
	}
	again, err := c.RotateSecret(ctx, token, key, created.ID)
	if err != nil || again.SigningSecret != "" {
		t.Errorf("RotateSecret repeated under its key = %+v, %v; want the first answer without the secret", again, err)
	}
	if _, err := c.RotateSecret(ctx, svc.Token(t, tenant, "api:view-webhook"), "", created.ID); client.StatusOf(err) != 403 {
		t.Errorf("rotate without api:update-webhook = %v, want 403", err)
	}

	// An event the receiver refuses: a failing delivery.
	env, err := events.New("contact.created", tenant, "", map[string]string{"id": ids.New()})
	if err != nil {
		t.Fatal(err)
	}
	if err := ingest.New(store.New(svc.DB.Pool), nil, nil, nil).Handle(ctx, env); err != nil {
		t.Fatal(err)
	}
	var page *client.DeliveryPage
	deadline := time.Now().Add(10 * time.Second)
	for {
		page, err = c.Deliveries(ctx, token, created.ID, client.DeliveryOptions{PerPage: 10})
		if err == nil && len(page.Data) == 1 && page.Data[0].AttemptCount > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Deliveries = %+v, %v; want one attempted delivery", page, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	d := page.Data[0]
	if d.EventType != "contact.created" || d.ResponseStatus == nil || *d.ResponseStatus != 503 || page.Meta.Total != 1 || len(d.Attempts) == 0 {
		t.Errorf("delivery = %+v (meta %+v)", d, page.Meta)
	}
	if _, err := c.Deliveries(ctx, token, created.ID, client.DeliveryOptions{Status: "nonsense"}); client.StatusOf(err) != 422 {
		t.Errorf("bad status filter = %v, want 422", err)
	}
	failed, err := c.RecentFailures(ctx, token, 5)
	if err != nil || len(failed) != 1 || failed[0].EndpointID != created.ID || failed[0].EndpointName != "orders" ||
		failed[0].ResponseStatus == nil || *failed[0].ResponseStatus != 503 {
		t.Errorf("RecentFailures = %+v, %v", failed, err)
	}
	if other, err := c.RecentFailures(ctx, svc.Token(t, ids.New(), "api:view-any-webhook"), 5); err != nil || len(other) != 0 {
		t.Errorf("another tenant's failures = %+v, %v", other, err)
	}
	if _, err := c.RecentFailures(ctx, svc.Token(t, tenant, "api:view-webhook"), 5); client.StatusOf(err) != 403 {
		t.Errorf("failures without api:view-any-webhook = %v, want 403", err)
	}
	if _, err := c.RecentFailures(ctx, token, 0); client.StatusOf(err) != 422 {
		t.Errorf("limit 0 = %v, want 422", err)
	}

	off, on := false, true
	if e, err := c.UpdateEndpoint(ctx, token, "", created.ID, client.EndpointPatch{IsActive: &off}); err != nil || e.IsActive {
		t.Fatalf("UpdateEndpoint off = %+v, %v", e, err)
	}
	e, err := c.UpdateEndpoint(ctx, token, "enable-"+ids.New(), created.ID, client.EndpointPatch{IsActive: &on})
	if err != nil || !e.IsActive || e.ConsecutiveFailures != 0 || e.DisabledAt != nil {
		t.Errorf("UpdateEndpoint on = %+v, %v", e, err)
	}
	bad := "http://example.com"
	if _, err := c.UpdateEndpoint(ctx, token, "", created.ID, client.EndpointPatch{URL: &bad}); client.StatusOf(err) != 422 {
		t.Errorf("http url = %v, want 422", err)
	}
}
