package devstack

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

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

// demoUserEmail is the sign-in of the demo tenant's owner in the dashboard.
const demoUserEmail = "owner@demo.paylane.test"

// ensureDemoUser returns the dashboard owner of the demo tenant from the
// previous start when its credentials still sign in to that tenant, else
// creates an owner with a fresh random password through the operator
// plane's one-time link, as an operator would.
func ensureDemoUser(ctx context.Context, admin *client.Admin, identity *client.Client, tenantID string, prev File) (email, password string, err error) {
	if prev.DemoUserEmail != "" && prev.DemoUserPassword != "" {
		u, err := identity.SignIn(ctx, prev.DemoUserEmail, prev.DemoUserPassword)
		if err == nil && u.TenantID == tenantID {
			return prev.DemoUserEmail, prev.DemoUserPassword, nil
		}
	}
	password, err = randomPassword()
	if err != nil {
		return "", "", err
	}
	email = demoUserEmail
	created, err := admin.CreateUser(ctx, tenantID, client.UserInput{Email: email, Name: "Demo Owner", Role: "owner"})
	if client.StatusOf(err) == http.StatusUnprocessableEntity {
		// The address is taken in this tenant by an owner whose password
		// is lost with an older devstack.json: a new address.
		suffix, rerr := randomPassword()
		if rerr != nil {
			return "", "", rerr
		}
		email = "owner-" + strings.ToLower(suffix[:8]) + "@demo.paylane.test"
		created, err = admin.CreateUser(ctx, tenantID, client.UserInput{Email: email, Name: "Demo Owner", Role: "owner"})
	}
	if err != nil {
		return "", "", fmt.Errorf("creating the demo owner: %w", err)
	}
	link, err := url.Parse(created.SetPasswordURL)
	if err != nil {
		return "", "", fmt.Errorf("reading the demo owner's link: %w", err)
	}
	if _, err := identity.SetPassword(ctx, link.Query().Get("token"), password); err != nil {
		return "", "", fmt.Errorf("setting the demo owner's password: %w", err)
	}
	return email, password, nil
}

// randomPassword is 24 random letters and digits.
func randomPassword() (string, error) {
	const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789"
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("reading random bytes: %w", err)
	}
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b), nil
}
