package clientcontract_test

import (
	"context"
	"net/url"
	"slices"
	"testing"

	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/identity-svc/internal/testenv"
)

// TestDashboardCalls runs every call the dashboard makes against the
// service started with Run.
func TestDashboardCalls(t *testing.T) {
	t.Parallel()
	svc, admin, ten := startWithTenant(t, client.TenantInput{Name: ptr("Acme")})
	ctx := context.Background()
	c := client.NewWithSecret(svc.BaseURL(), testenv.ServiceSecret, nil)
	created := activate(t, admin, c, ten.ID, client.UserInput{Email: "dev@example.com", Name: "Dev", Role: "developer"})
	u, err := c.SignIn(ctx, "dev@example.com", "correct horse battery")
	if err != nil || u.ID != created.ID {
		t.Fatalf("SignIn = %+v, %v", u, err)
	}
	if err := c.ChangePassword(ctx, ten.ID, u.ID, "wrong password!!", "another good password"); client.StatusOf(err) != 422 {
		t.Errorf("ChangePassword with a wrong current password = %v, want 422", err)
	}
	if err := c.ChangePassword(ctx, ten.ID, u.ID, "correct horse battery", "another good password"); err != nil {
		t.Errorf("ChangePassword = %v", err)
	}
	if got, err := c.User(ctx, ten.ID, u.ID); err != nil || got.Email != "dev@example.com" {
		t.Errorf("User = %+v, %v", got, err)
	}
	if page, err := c.Users(ctx, ten.ID, client.ListOptions{}); err != nil || page.Meta.Total != 1 {
		t.Errorf("Users = %+v, %v", page, err)
	}
	if roles, err := c.Roles(ctx, ten.ID); err != nil || len(roles) != 4 {
		t.Errorf("Roles = %+v, %v", roles, err)
	}
	if _, err := c.CreateUserToken(ctx, ten.ID, u.ID, "ci", []string{"api:create-contact"}); client.StatusOf(err) != 403 {
		t.Errorf("CreateUserToken outside the role = %v, want 403", err)
	}
	tok, err := c.CreateUserToken(ctx, ten.ID, u.ID, "ci", []string{"api:view-any-contact"})
	if err != nil || !slices.Equal(tok.Abilities, []string{"api:view-any-contact"}) {
		t.Fatalf("CreateUserToken = %+v, %v", tok, err)
	}
	if page, err := c.Tokens(ctx, ten.ID, client.ListOptions{}); err != nil || page.Meta.Total != 1 || page.Data[0].ID != tok.ID {
		t.Errorf("Tokens = %+v, %v", page, err)
	}
	if err := c.RevokeToken(ctx, ten.ID, tok.ID); err != nil {
		t.Errorf("RevokeToken = %v", err)
	}
	if _, err := c.Introspect(ctx, tok.Token, ""); err == nil {
		t.Error("the revoked token still introspects")
	}
	jwt, err := c.UserToken(ctx, ten.ID, u.ID)
	if err != nil || jwt == "" {
		t.Fatalf("UserToken = %q, %v", jwt, err)
	}
	if again, _ := c.UserToken(ctx, ten.ID, u.ID); again != jwt {
		t.Error("UserToken is not reused while fresh")
	}
}

// activate creates a user of the tenant on the operator plane and sets
// their password ("correct horse battery") through the one-time link, as
// the person would on the dashboard.
func activate(t *testing.T, admin *client.Admin, c *client.Client, tenantID string, in client.UserInput) *client.User {
	t.Helper()
	ctx := context.Background()
	created, err := admin.CreateUser(ctx, tenantID, in)
	if err != nil {
		t.Fatal(err)
	}
	link, _ := url.Parse(created.SetPasswordURL)
	u, err := c.SetPassword(ctx, link.Query().Get("token"), "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	return u
}
