package main

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/identity-svc/internal/testenv"
)

func TestUsers(t *testing.T) {
	t.Parallel()
	svc := testenv.Start(t, nil)
	conn := []string{"--admin-url", svc.BaseURL(), "--admin-token", testenv.AdminToken, "--config", writeConfig(t, devstack{})}
	var ten client.Tenant
	mustRun(t, &ten, append(conn, "tenants", "create", "--name", "Acme")...)

	var created client.NewUser
	mustRun(t, &created, append(conn, "users", "create", "--tenant", ten.ID, "--email", "ada@example.com",
		"--name", "Ada Lovelace", "--role", "owner")...)
	link, err := url.Parse(created.SetPasswordURL)
	if err != nil || created.Email != "ada@example.com" || created.Role != "owner" || link.Query().Get("token") == "" {
		t.Fatalf("users create printed %+v", created)
	}
	identity := client.NewWithSecret(svc.BaseURL(), testenv.ServiceSecret, nil)
	ctx := context.Background()
	if _, err := identity.SetPassword(ctx, link.Query().Get("token"), "correct horse battery"); err != nil {
		t.Fatalf("the printed link does not set a password: %v", err)
	}
	if _, err := identity.SignIn(ctx, "ada@example.com", "correct horse battery"); err != nil {
		t.Fatalf("SignIn after set-password: %v", err)
	}

	var users client.UserPage
	mustRun(t, &users, append(conn, "users", "list", "--tenant", ten.ID)...)
	if users.Meta.Total != 1 || users.Data[0].ID != created.ID {
		t.Errorf("users list = %+v", users)
	}
	var disabled client.User
	mustRun(t, &disabled, append(conn, "users", "disable", "--tenant", ten.ID, created.ID)...)
	if disabled.DisabledAt == nil {
		t.Errorf("users disable printed %+v", disabled)
	}
	if _, err := identity.SignIn(ctx, "ada@example.com", "correct horse battery"); client.StatusOf(err) != 401 {
		t.Errorf("SignIn of a disabled user = %v, want 401", err)
	}

	code, _, stderr := cliRun(t, append(conn, "users", "create", "--tenant", ten.ID, "--email", "bob@example.com",
		"--name", "Bob", "--role", "pilot")...)
	if code == 0 || !strings.Contains(stderr, "role") {
		t.Errorf("users create with an unknown role: exit %d, stderr %s", code, stderr)
	}
	if code, _, _ := cliRun(t, append(conn, "users", "create", "--tenant", ten.ID)...); code == 0 {
		t.Error("users create without --email succeeded")
	}
}
