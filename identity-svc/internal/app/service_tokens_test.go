package app_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/identity-svc/internal/app"
	"github.com/paylane/paylane/identity-svc/internal/tenant"
	"github.com/paylane/paylane/identity-svc/internal/token"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/ids"
)

func TestIssueServiceTokenClaims(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _, signer, ten := setup(t)
	st, err := a.IssueServiceToken(ctx, token.ServiceGrant{
		TenantID: ten.ID, Service: "optin-svc",
		Abilities: []string{"api:view-contact", "api:create-contact", "api:view-contact"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if ttl := time.Until(st.ExpiresAt); ttl <= 0 || ttl > time.Minute+time.Second {
		t.Errorf("service token expires in %s, want within the configured minute", ttl)
	}
	v, err := authz.NewStaticVerifier(signer.JWKS())
	if err != nil {
		t.Fatal(err)
	}
	c, err := v.Verify(ctx, st.InternalToken)
	if err != nil {
		t.Fatal(err)
	}
	want := authz.Claims{
		TenantID: ten.ID, TokenID: 0, Abilities: []string{"api:view-contact", "api:create-contact"},
		Flags:  authz.Flags{AIGateway: true},
		Limits: authz.Limits{APIRequestsPerMinute: 60, BatchSubmissionsPerMinute: 10, BatchesInFlight: 2},
		Region: "FR", Currency: "EUR",
	}
	want.RegisteredClaims = c.RegisteredClaims
	if diff := cmp.Diff(want, *c); diff != "" {
		t.Errorf("claims (-want +got):\n%s", diff)
	}
	if c.Subject != "service:optin-svc" || c.Issuer != authz.Issuer {
		t.Errorf("sub = %q, iss = %q", c.Subject, c.Issuer)
	}
}

func TestIssueServiceTokenRefusals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _, _, ten := setup(t)
	tests := []struct {
		name      string
		grant     token.ServiceGrant
		notFound  bool
		badFields []string
	}{
		{"unknown ability", token.ServiceGrant{TenantID: ten.ID, Service: "batch", Abilities: []string{"api:fly"}}, false, []string{"abilities"}},
		{"no service", token.ServiceGrant{TenantID: ten.ID, Abilities: []string{"api:view-contact"}}, false, []string{"service"}},
		{"unknown tenant", token.ServiceGrant{TenantID: ids.New(), Service: "batch", Abilities: []string{"api:view-contact"}}, true, nil},
		{"malformed tenant id", token.ServiceGrant{TenantID: "acme", Service: "batch", Abilities: []string{"api:view-contact"}}, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := a.IssueServiceToken(ctx, tt.grant)
			if tt.notFound {
				if !errors.Is(err, tenant.ErrNotFound) {
					t.Errorf("IssueServiceToken() = %v, want ErrNotFound", err)
				}
				return
			}
			var ve *app.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("IssueServiceToken() = %v, want a ValidationError", err)
			}
			var fields []string
			for f := range ve.Fields {
				fields = append(fields, f)
			}
			if diff := cmp.Diff(tt.badFields, fields); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTenantBySMSNumber(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _, _, ten := setup(t)
	if _, err := a.UpdateTenant(ctx, ten.ID, tenant.Patch{SMSNumber: tenant.Of("+15550001111")}); err != nil {
		t.Fatal(err)
	}
	got, err := a.TenantBySMSNumber(ctx, "+15550001111")
	if err != nil || got.ID != ten.ID {
		t.Errorf("TenantBySMSNumber(own number) = %+v, %v", got, err)
	}
	if _, err := a.TenantBySMSNumber(ctx, "+15550002222"); !errors.Is(err, tenant.ErrNotFound) {
		t.Errorf("TenantBySMSNumber(unused number) = %v, want ErrNotFound", err)
	}
	for _, bad := range []string{"", "15550001111", "+1 555 000 1111"} {
		var ve *app.ValidationError
		if _, err := a.TenantBySMSNumber(ctx, bad); !errors.As(err, &ve) || ve.Fields["sms_number"] == nil {
			t.Errorf("TenantBySMSNumber(%q) = %v, want a validation error on sms_number", bad, err)
		}
	}
}
