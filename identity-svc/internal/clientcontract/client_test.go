package clientcontract_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/identity-svc/internal/testenv"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func ptr[T any](v T) *T { return &v }

func TestAdminAndIntrospectionAgainstTheService(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc := testenv.Start(t, nil)
	admin := client.NewAdmin(svc.BaseURL()+"/", testenv.AdminToken, nil)
	identity := client.New(svc.BaseURL(), nil)

	created, err := admin.CreateTenant(ctx, client.TenantInput{Name: ptr("Acme"), Flags: &client.FlagsInput{OptIn: ptr(true)},
		Limits: &client.LimitsInput{APIRequestsPerMinute: ptr(100)}})
	if err != nil {
		t.Fatal(err)
	}
	if created.Name != "Acme" || !created.Flags.OptIn || created.Limits.APIRequestsPerMinute != 100 {
		t.Errorf("CreateTenant() = %+v", created)
	}
	updated, err := admin.UpdateTenant(ctx, created.ID, client.TenantInput{SMSNumber: ptr("+15550001111"),
		Limits: &client.LimitsInput{APIRequestsPerMinute: ptr(0), BatchesInFlight: ptr(3)}})
	if err != nil {
		t.Fatal(err)
	}
	wantLimits := authz.Limits{APIRequestsPerMinute: 60, BatchSubmissionsPerMinute: 10, BatchesInFlight: 3}
	if updated.Limits != wantLimits || updated.SMSNumber == nil || *updated.SMSNumber != "+15550001111" || updated.Name != "Acme" {
		t.Errorf("UpdateTenant() = %+v, want limits %+v", updated, wantLimits)
	}
	got, err := admin.GetTenant(ctx, created.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(updated, got); diff != "" {
		t.Errorf("GetTenant() (-want +got):\n%s", diff)
	}
	page, err := admin.ListTenants(ctx, client.ListOptions{Page: 1, PerPage: 10})
	if err != nil {
		t.Fatal(err)
	}
	if page.Meta.Total != 1 || len(page.Data) != 1 || page.Data[0].ID != created.ID {
		t.Errorf("ListTenants() = %+v", page)
	}

	tok, err := admin.CreateToken(ctx, created.ID, client.TokenInput{Name: "ci", Abilities: []string{"api:view-contact"},
		ExpiresAt: ptr(time.Now().Add(time.Hour))})
	if err != nil {
		t.Fatal(err)
	}
	in, err := identity.Introspect(ctx, tok.Token, ids.New())
	if err != nil {
		t.Fatal(err)
	}
	if in.TenantID != created.ID || in.TokenID != tok.ID || in.Limits != wantLimits || in.InternalToken == "" {
		t.Errorf("Introspect() = %+v", in)
	}
	tokens, err := admin.ListTokens(ctx, created.ID, client.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tokens.Data) != 1 || tokens.Data[0].ID != tok.ID || tokens.Data[0].LastUsedAt == nil {
		t.Errorf("ListTokens() = %+v, want the used token", tokens)
	}
	if err := admin.RevokeToken(ctx, created.ID, tok.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := identity.Introspect(ctx, tok.Token, ""); !errors.Is(err, client.ErrInvalidToken) {
		t.Errorf("Introspect(revoked) = %v, want ErrInvalidToken", err)
	}
}

func TestErrorsCarryStatusAndCode(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc := testenv.Start(t, nil)
	admin := client.NewAdmin(svc.BaseURL(), testenv.AdminToken, nil)
	tests := []struct {
		name   string
		call   func() error
		status int
		code   string
	}{
		{"unknown tenant", func() error { _, err := admin.GetTenant(ctx, ids.New()); return err }, 404, "resource_not_found"},
		{"invalid tenant", func() error { _, err := admin.CreateTenant(ctx, client.TenantInput{}); return err }, 422, "validation_failed"},
		{"unknown ability", func() error {
			t, err := admin.CreateTenant(ctx, client.TenantInput{Name: ptr("A")})
			if err != nil {
				return err
			}
			_, err = admin.CreateToken(ctx, t.ID, client.TokenInput{Name: "x", Abilities: []string{"api:nope"}})
			return err
		}, 422, "validation_failed"},
		{"unknown token", func() error { return admin.RevokeToken(ctx, ids.New(), 5) }, 404, "resource_not_found"},
		{"wrong admin token", func() error {
			_, err := client.NewAdmin(svc.BaseURL(), "wrong", nil).ListTenants(ctx, client.ListOptions{})
			return err
		}, 401, "unauthenticated"},
		{"unknown route through Do", func() error { return admin.Do(ctx, http.MethodGet, "/admin/v1/nothing", nil, nil) }, 404, "route_not_found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			var apiErr *client.Error
			if !errors.As(err, &apiErr) || apiErr.Status != tt.status || apiErr.Code != tt.code || apiErr.RequestID == "" {
				t.Fatalf("error = %#v, want %d %s with a request id", err, tt.status, tt.code)
			}
			if client.StatusOf(err) != tt.status {
				t.Errorf("StatusOf() = %d", client.StatusOf(err))
			}
		})
	}
}

func TestDoDecodesAnyAnswer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc := testenv.Start(t, nil)
	admin := client.NewAdmin(svc.BaseURL(), testenv.AdminToken, nil)
	var out struct {
		Data client.Tenant `json:"data"`
	}
	if err := admin.Do(ctx, http.MethodPost, "/admin/v1/tenants", map[string]any{"name": "Raw"}, &out); err != nil {
		t.Fatal(err)
	}
	if out.Data.Name != "Raw" || !ids.Valid(out.Data.ID) {
		t.Errorf("Do() decoded %+v", out.Data)
	}
}

func TestJWKSURLServesTheKeys(t *testing.T) {
	t.Parallel()
	svc := testenv.Start(t, nil)
	c := client.New(svc.BaseURL(), nil)
	resp, err := http.Get(c.JWKSURL())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if _, err := authz.NewStaticVerifier(body); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("GET %s = %d %s (%v)", c.JWKSURL(), resp.StatusCode, body, err)
	}
}
