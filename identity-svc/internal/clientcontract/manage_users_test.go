package clientcontract_test

import (
	"context"
	"slices"
	"testing"

	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/identity-svc/internal/testenv"
)

// TestDashboardManagesUsersAndRoles runs the dashboard's users-and-roles
// calls against the service started with Run.
func TestDashboardManagesUsersAndRoles(t *testing.T) {
	t.Parallel()
	svc, admin, ten := startWithTenant(t, client.TenantInput{Name: ptr("Acme")})
	ctx := context.Background()
	c := client.NewWithSecret(svc.BaseURL(), testenv.ServiceSecret, nil)
	owner := activate(t, admin, c, ten.ID, client.UserInput{Email: "owner@example.com", Name: "owner@example.com", Role: "owner"})
	dev := activate(t, admin, c, ten.ID, client.UserInput{Email: "dev@example.com", Name: "dev@example.com", Role: "developer"})

	if _, err := c.DisableUser(ctx, ten.ID, dev.ID, owner.ID); client.StatusOf(err) != 403 {
		t.Errorf("DisableUser by a developer = %v, want 403", err)
	}
	if _, err := c.DisableUser(ctx, ten.ID, owner.ID, owner.ID); client.StatusOf(err) != 422 {
		t.Errorf("DisableUser of oneself = %v, want 422", err)
	}
	before, err := c.UserToken(ctx, ten.ID, dev.ID)
	if err != nil || before == "" {
		t.Fatalf("UserToken = %q, %v", before, err)
	}
	got, err := c.DisableUser(ctx, ten.ID, owner.ID, dev.ID)
	if err != nil || got.DisabledAt == nil {
		t.Fatalf("DisableUser = %+v, %v", got, err)
	}
	if _, err := c.UserToken(ctx, ten.ID, dev.ID); client.StatusOf(err) != 404 {
		t.Errorf("UserToken of a disabled user = %v, want 404 (not the cached token)", err)
	}
	if _, err := c.SignIn(ctx, "dev@example.com", "correct horse battery"); client.StatusOf(err) != 401 {
		t.Errorf("SignIn of a disabled user = %v, want 401", err)
	}

	role, err := c.CreateRole(ctx, ten.ID, owner.ID, client.Role{Name: "auditor", Abilities: []string{"api:view-any-contact"}})
	if err != nil || role.Name != "auditor" {
		t.Fatalf("CreateRole = %+v, %v", role, err)
	}
	if _, err := c.CreateRole(ctx, ten.ID, owner.ID, client.Role{Name: "auditor", Abilities: []string{"api:view-any-contact"}}); client.StatusOf(err) != 422 {
		t.Errorf("CreateRole with a taken name = %v, want 422", err)
	}
	role, err = c.UpdateRole(ctx, ten.ID, owner.ID, client.Role{Name: "auditor", Abilities: []string{"api:view-any-contact", "api:view-any-webhook"}})
	if err != nil || !slices.Equal(role.Abilities, []string{"api:view-any-contact", "api:view-any-webhook"}) {
		t.Errorf("UpdateRole = %+v, %v", role, err)
	}
	if _, err := c.UpdateRole(ctx, ten.ID, owner.ID, client.Role{Name: "finance", Abilities: []string{"api:view-any-contact"}}); client.StatusOf(err) != 422 {
		t.Errorf("UpdateRole of a default role = %v, want 422", err)
	}
	if _, err := c.UpdateRole(ctx, ten.ID, owner.ID, client.Role{Name: "nobody", Abilities: []string{"api:view-any-contact"}}); client.StatusOf(err) != 404 {
		t.Errorf("UpdateRole of no such role = %v, want 404", err)
	}
	if roles, err := c.Roles(ctx, ten.ID); err != nil || len(roles) != 5 {
		t.Errorf("Roles = %+v, %v", roles, err)
	}
}
