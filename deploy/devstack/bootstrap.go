package devstack

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/libs/authz"
)

// demoTenantName is the name of the tenant the devstack creates.
const demoTenantName = "Demo"

// demo is the demo tenant and its all-abilities token.
type demo struct{ tenantID, token string }

// ensureDemo returns the demo tenant and token of the previous start when
// the token still introspects, else mints a new token (in the previous demo
// tenant when it still exists, else in a new "Demo" tenant with the
// ai_gateway and opt_in flags on). Everything goes through the admin API.
func ensureDemo(ctx context.Context, admin *client.Admin, identity *client.Client, prev File) (demo, error) {
	if prev.DemoToken != "" && prev.DemoTenantID != "" {
		in, err := identity.Introspect(ctx, prev.DemoToken, "")
		switch {
		case err == nil && in.TenantID == prev.DemoTenantID:
			return demo{tenantID: prev.DemoTenantID, token: prev.DemoToken}, nil
		case err != nil && !errors.Is(err, client.ErrInvalidToken):
			return demo{}, fmt.Errorf("checking the previous demo token: %w", err)
		}
	}
	tenantID, err := demoTenant(ctx, admin, prev.DemoTenantID)
	if err != nil {
		return demo{}, err
	}
	tok, err := admin.CreateToken(ctx, tenantID, client.TokenInput{Name: "devstack demo", Abilities: authz.All()})
	if err != nil {
		return demo{}, fmt.Errorf("minting the demo token: %w", err)
	}
	return demo{tenantID: tenantID, token: tok.Token}, nil
}

// demoTenant returns prevID when that tenant still exists, else creates one.
func demoTenant(ctx context.Context, admin *client.Admin, prevID string) (string, error) {
	if prevID != "" {
		_, err := admin.GetTenant(ctx, prevID)
		if err == nil {
			return prevID, nil
		}
		if client.StatusOf(err) != http.StatusNotFound {
			return "", fmt.Errorf("reading the previous demo tenant: %w", err)
		}
	}
	name, on := demoTenantName, true
	t, err := admin.CreateTenant(ctx, client.TenantInput{
		Name:  &name,
		Flags: &client.FlagsInput{AIGateway: &on, OptIn: &on},
	})
	if err != nil {
		return "", fmt.Errorf("creating the demo tenant: %w", err)
	}
	return t.ID, nil
}
