package clientcontract_test

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/webhook-svc/client"
	"github.com/paylane/paylane/webhook-svc/internal/testenv"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func TestEndpoints(t *testing.T) {
	t.Parallel()
	svc := testenv.StartService(t, testenv.ServiceOptions{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}})
	c := client.New("http://"+svc.Addrs.HTTP, nil)
	ctx := context.Background()
	tenant := ids.New()
	token := svc.Token(t, tenant, "api:view-any-webhook", "api:create-webhook")
	in := client.EndpointInput{Name: "orders", URL: "https://127.0.0.1:9/hooks", SubscribedEvents: []string{"receivable.paid"}}
	created, err := c.CreateEndpoint(ctx, token, "create-"+tenant, in)
	if err != nil || !strings.HasPrefix(created.SigningSecret, "whsec_") || created.Name != "orders" {
		t.Fatalf("CreateEndpoint = %+v, %v", created, err)
	}
	if again, err := c.CreateEndpoint(ctx, token, "create-"+tenant, in); err != nil || again.ID != created.ID || again.SigningSecret != "" {
		t.Errorf("CreateEndpoint repeated under its key = %+v, %v; want the first endpoint without its secret", again, err)
	}
	list, err := c.Endpoints(ctx, token)
	if err != nil || len(list) != 1 || list[0].ID != created.ID || list[0].SigningSecret != "" {
		t.Fatalf("Endpoints = %+v, %v", list, err)
	}
	if other, err := c.Endpoints(ctx, svc.Token(t, ids.New(), "api:view-any-webhook")); err != nil || len(other) != 0 {
		t.Errorf("another tenant's list = %+v, %v", other, err)
	}
	if _, err := c.Endpoints(ctx, svc.Token(t, tenant, "api:view-contact")); client.StatusOf(err) != 403 {
		t.Errorf("list without the ability = %v, want 403", err)
	}
	_, err = c.CreateEndpoint(ctx, token, "", client.EndpointInput{Name: "x", URL: "not a url", SubscribedEvents: []string{"receivable.paid"}})
	var e *client.Error
	if client.StatusOf(err) != 422 || !errors.As(err, &e) || e.Fields()["url"] == nil {
		t.Errorf("bad url = %v, want 422 naming url", err)
	}
}
