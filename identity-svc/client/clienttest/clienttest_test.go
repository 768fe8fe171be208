package clienttest_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/identity-svc/client/clienttest"
	"github.com/paylane/paylane/libs/authz"
)

// TestTheFakeAnswersAsIdentitySvc drives the fake through the client, as a
// service's harness does: tenants and tokens through the admin routes,
// introspection, service tokens and tenant lookups, each internal token
// verified with the fake's JWKS.
func TestTheFakeAnswersAsIdentitySvc(t *testing.T) {
	t.Parallel()
	f := clienttest.New(t)
	ctx := context.Background()
	admin := client.NewAdmin(f.URL, clienttest.AdminToken, nil)
	name, number, optIn := "Acme", "+15005550006", true
	tenant, err := admin.CreateTenant(ctx, client.TenantInput{Name: &name, SMSNumber: &number, Flags: &client.FlagsInput{OptIn: &optIn}})
	if err != nil || tenant.ID == "" || !tenant.Flags.OptIn || tenant.SMSNumber == nil || *tenant.SMSNumber != number {
		t.Fatalf("CreateTenant = %+v, %v", tenant, err)
	}
	var updates []client.Tenant
	f.OnTenantUpdated(func(tn client.Tenant) { updates = append(updates, tn) })
	other := "+15005550007"
	if _, err := admin.UpdateTenant(ctx, tenant.ID, client.TenantInput{SMSNumber: &other}); err != nil || len(updates) != 1 || *updates[0].SMSNumber != other {
		t.Fatalf("UpdateTenant: %v, updates seen %+v", err, updates)
	}
	if _, err := client.NewAdmin(f.URL, "wrong", nil).CreateTenant(ctx, client.TenantInput{}); client.StatusOf(err) != http.StatusUnauthorized {
		t.Errorf("admin route with a wrong token: %v, want 401", err)
	}

	verifier, err := authz.NewStaticVerifier(f.Signer.JWKS())
	if err != nil {
		t.Fatal(err)
	}
	tok, err := admin.CreateToken(ctx, tenant.ID, client.TokenInput{Name: "t", Abilities: []string{"api:view-contact"}})
	if err != nil {
		t.Fatal(err)
	}
	in, err := client.New(f.URL, nil).Introspect(ctx, tok.Token, "")
	if err != nil || in.TenantID != tenant.ID || !in.Flags.OptIn {
		t.Fatalf("Introspect = %+v, %v", in, err)
	}
	claims, err := verifier.Verify(ctx, in.InternalToken)
	if err != nil || claims.TenantID != tenant.ID || !claims.Has("api:view-contact") || claims.Has("api:create-contact") {
		t.Errorf("introspected internal token: %+v, %v", claims, err)
	}
	if _, err := client.New(f.URL, nil).Introspect(ctx, "pl_9|nope", ""); !errors.Is(err, client.ErrInvalidToken) {
		t.Errorf("unknown token: %v, want ErrInvalidToken", err)
	}

	svc := client.NewWithSecret(f.URL, clienttest.ServiceSecret, nil).WithService("test")
	st, err := svc.ServiceToken(ctx, tenant.ID, []string{"api:create-contact"})
	if err != nil {
		t.Fatal(err)
	}
	if claims, err := verifier.Verify(ctx, st); err != nil || claims.Subject != "service:test" || !claims.Has("api:create-contact") {
		t.Errorf("service token: %+v, %v", claims, err)
	}
	if got, err := svc.TenantBySMSNumber(ctx, other); err != nil || got.ID != tenant.ID {
		t.Errorf("TenantBySMSNumber = %+v, %v", got, err)
	}
	for _, lookup := range []func() error{
		func() error { _, err := svc.Tenant(ctx, "01J00000000000000000000000"); return err },
		func() error { _, err := svc.TenantBySMSNumber(ctx, number); return err }, // no longer the tenant's
		func() error { _, err := svc.ServiceToken(ctx, "01J00000000000000000000000", nil); return err },
	} {
		if err := lookup(); !errors.Is(err, client.ErrTenantNotFound) {
			t.Errorf("lookup of nothing: %v, want ErrTenantNotFound", err)
		}
	}
	if _, err := client.NewWithSecret(f.URL, "wrong", nil).Tenant(ctx, tenant.ID); client.StatusOf(err) != http.StatusUnauthorized {
		t.Errorf("service route with a wrong secret: %v, want 401", err)
	}
}
