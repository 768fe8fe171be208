// Package wire converts the domain types into the JSON shapes of the admin
// API and of the events (the types of the client package), so that both
// render a tenant the same way.
package wire

import (
	"time"

	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/identity-svc/internal/tenant"
	"github.com/paylane/paylane/identity-svc/internal/token"
	"github.com/paylane/paylane/identity-svc/internal/user"
	"github.com/paylane/paylane/libs/authz"
)

// Tenant renders a tenant with its effective limits.
func Tenant(t tenant.Tenant) client.Tenant {
	out := client.Tenant{
		ID:              t.ID,
		Name:            t.Name,
		DefaultCurrency: t.DefaultCurrency,
		DefaultRegion:   t.DefaultRegion,
		Flags:           Flags(t.Flags),
		Limits:          Limits(t.Limits.Effective()),
		CreatedAt:       Time(t.CreatedAt),
		UpdatedAt:       Time(t.UpdatedAt),
	}
	if t.SMSNumber != "" {
		n := t.SMSNumber
		out.SMSNumber = &n
	}
	return out
}

// Tenants renders a list of tenants.
func Tenants(ts []tenant.Tenant) []client.Tenant {
	out := make([]client.Tenant, len(ts))
	for i, t := range ts {
		out[i] = Tenant(t)
	}
	return out
}

// Flags converts the domain flags to the claims' flags.
func Flags(f tenant.Flags) authz.Flags {
	return authz.Flags{AIGateway: f.AIGateway, OptIn: f.OptIn}
}

// Limits converts the domain limits to the claims' limits.
func Limits(l tenant.Limits) authz.Limits {
	return authz.Limits{
		APIRequestsPerMinute:      l.APIRequestsPerMinute,
		BatchSubmissionsPerMinute: l.BatchSubmissionsPerMinute,
		BatchesInFlight:           l.BatchesInFlight,
		AIMaxAmount:               amountOrNil(l.AIMaxAmount),
		AIDailyAmount:             amountOrNil(l.AIDailyAmount),
	}
}

// amountOrNil renders an AI gateway guardrail: 0 (none) as null.
func amountOrNil(v int64) *int64 {
	if v <= 0 {
		return nil
	}
	return &v
}

// Token renders a stored token, never its secret.
func Token(t token.Token) client.Token {
	return client.Token{
		ID:         t.ID,
		Name:       t.Name,
		Abilities:  nonNil(t.Abilities),
		ExpiresAt:  TimePtr(t.ExpiresAt),
		RevokedAt:  TimePtr(t.RevokedAt),
		LastUsedAt: TimePtr(t.LastUsedAt),
		CreatedAt:  Time(t.CreatedAt),
	}
}

// Tokens renders a list of tokens.
func Tokens(ts []token.Token) []client.Token {
	out := make([]client.Token, len(ts))
	for i, t := range ts {
		out[i] = Token(t)
	}
	return out
}

// Time renders a timestamp in UTC with millisecond precision (contract
// section 2).
func Time(t time.Time) time.Time { return t.UTC().Truncate(time.Millisecond) }

// TimePtr is Time for optional timestamps.
func TimePtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	v := Time(*t)
	return &v
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// User renders a dashboard user (never its password hash).
func User(u user.User) client.User {
	return client.User{
		ID: u.ID, TenantID: u.TenantID, Email: u.Email, Name: u.Name, Role: u.Role,
		Abilities: u.Abilities, PasswordSet: u.PasswordSet,
		DisabledAt: TimePtr(u.DisabledAt), LastSignInAt: TimePtr(u.LastSignInAt),
		CreatedAt: Time(u.CreatedAt), UpdatedAt: Time(u.UpdatedAt),
	}
}

// Users renders a list of users.
func Users(us []user.User) []client.User {
	out := make([]client.User, len(us))
	for i, u := range us {
		out[i] = User(u)
	}
	return out
}

// Roles renders a list of roles.
func Roles(rs []user.Role) []client.Role {
	out := make([]client.Role, len(rs))
	for i, r := range rs {
		out[i] = client.Role{Name: r.Name, Abilities: r.Abilities, Default: user.IsDefault(r.Name)}
	}
	return out
}
