package testenv

import (
	"context"
	"testing"
	"time"

	idclient "github.com/paylane/paylane/identity-svc/client"
)

// TenantOptions shape a tenant made by NewTenant.
type TenantOptions struct {
	OptIn     bool
	SMSNumber string
}

// NewTenant creates a tenant through identity-svc's admin API and returns its id.
func (e *Env) NewTenant(t testing.TB, o TenantOptions) string {
	t.Helper()
	name := "Acme " + time.Now().Format("150405.000000")
	in := idclient.TenantInput{Name: &name, Flags: &idclient.FlagsInput{OptIn: &o.OptIn}}
	if o.SMSNumber != "" {
		in.SMSNumber = &o.SMSNumber
	}
	tenant, err := e.Admin.CreateTenant(context.Background(), in)
	if err != nil {
		t.Fatalf("creating tenant: %v", err)
	}
	return tenant.ID
}

// Token mints an API token of the tenant with the abilities and returns
// the internal JWT identity-svc issues for it: what the gateway forwards.
func (e *Env) Token(t testing.TB, tenantID string, abilities ...string) string {
	t.Helper()
	ctx := context.Background()
	if abilities == nil {
		abilities = []string{}
	}
	tok, err := e.Admin.CreateToken(ctx, tenantID, idclient.TokenInput{Name: "test", Abilities: abilities})
	if err != nil {
		t.Fatalf("creating token: %v", err)
	}
	in, err := e.Identity.Introspect(ctx, tok.Token, "")
	if err != nil {
		t.Fatalf("introspecting token: %v", err)
	}
	return in.InternalToken
}
