package app

import (
	"context"
	"fmt"
	"time"

	"github.com/paylane/paylane/identity-svc/internal/tenant"
	"github.com/paylane/paylane/identity-svc/internal/token"
)

// ServiceToken is an internal JWT issued to a service for a tenant.
type ServiceToken struct {
	InternalToken string
	ExpiresAt     time.Time
}

// IssueServiceToken signs an internal token for a service acting for a
// tenant without a user's request. It carries the granted abilities and the
// tenant's flags, effective limits, region and currency like an
// introspection's token, token id 0 (no API token stands behind it) and the
// subject "service:<name>". A ValidationError for a bad grant (unknown
// abilities are named); tenant.ErrNotFound for an unknown tenant.
func (a *App) IssueServiceToken(ctx context.Context, g token.ServiceGrant) (ServiceToken, error) {
	if fields := g.Validate(a.known); fields != nil {
		return ServiceToken{}, &ValidationError{Fields: fields}
	}
	g = g.Normalize()
	ten, err := a.GetTenant(ctx, g.TenantID)
	if err != nil {
		return ServiceToken{}, err
	}
	claims := tenantClaims(ten, g.Abilities)
	claims.Subject = g.Subject()
	signed, expires, err := a.signer.Sign(claims, a.tokenTTL)
	if err != nil {
		return ServiceToken{}, fmt.Errorf("signing service token: %w", err)
	}
	return ServiceToken{InternalToken: signed, ExpiresAt: expires}, nil
}

// TenantBySMSNumber finds the tenant whose SMS sender number is number
// (E.164): inbound SMS is routed by it. A ValidationError for a number that
// is not E.164; tenant.ErrNotFound when no tenant has it.
func (a *App) TenantBySMSNumber(ctx context.Context, number string) (tenant.Tenant, error) {
	switch {
	case number == "":
		return tenant.Tenant{}, &ValidationError{Fields: map[string][]string{
			"sms_number": {"The sms number field is required."}}}
	case !tenant.ValidSMSNumber(number):
		return tenant.Tenant{}, &ValidationError{Fields: map[string][]string{
			"sms_number": {"The sms number field must be a phone number in E.164 format."}}}
	}
	t, err := a.store.TenantBySMSNumber(ctx, number)
	if err != nil {
		return tenant.Tenant{}, fmt.Errorf("finding tenant by sms number: %w", err)
	}
	return t, nil
}
