package client

import (
	"encoding/json"
	"time"

	"github.com/paylane/paylane/libs/authz"
)

// Tenant is a tenant as the admin API renders it. Limits are the effective
// values (overrides, else the deployment defaults). It is also the data of
// the tenant.updated event.
type Tenant struct {
	ID              string       `json:"id"`
	Name            string       `json:"name"`
	DefaultCurrency string       `json:"default_currency"`
	DefaultRegion   string       `json:"default_region"`
	SMSNumber       *string      `json:"sms_number"`
	Flags           authz.Flags  `json:"flags"`
	Limits          authz.Limits `json:"limits"`
	CreatedAt       time.Time    `json:"created_at"`
	UpdatedAt       time.Time    `json:"updated_at"`
}

// Token is a token as listed by the admin API: never its secret.
type Token struct {
	ID         int64      `json:"id"`
	Name       string     `json:"name"`
	Abilities  []string   `json:"abilities"`
	ExpiresAt  *time.Time `json:"expires_at"`
	RevokedAt  *time.Time `json:"revoked_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
	CreatedAt  time.Time  `json:"created_at"`
}

// NewToken is the answer to a token creation: the only time the plaintext
// token is shown.
type NewToken struct {
	ID        int64      `json:"id"`
	Name      string     `json:"name"`
	Abilities []string   `json:"abilities"`
	ExpiresAt *time.Time `json:"expires_at"`
	Token     string     `json:"token"`
}

// TenantInput is the body of a tenant create or update. Nil fields are not
// sent (kept on update, defaulted on create). SMSNumber set to "" removes the
// number.
type TenantInput struct {
	Name            *string      `json:"name,omitempty"`
	DefaultCurrency *string      `json:"default_currency,omitempty"`
	DefaultRegion   *string      `json:"default_region,omitempty"`
	SMSNumber       *string      `json:"sms_number,omitempty"`
	Flags           *FlagsInput  `json:"flags,omitempty"`
	Limits          *LimitsInput `json:"limits,omitempty"`
}

// FlagsInput is a partial update of a tenant's flags.
type FlagsInput struct {
	AIGateway *bool `json:"ai_gateway,omitempty"`
	OptIn     *bool `json:"opt_in,omitempty"`
}

// LimitsInput is a partial update of a tenant's limit overrides. A field
// pointing at 0 is sent as null: back to the deployment default.
type LimitsInput struct {
	APIRequestsPerMinute      *int
	BatchSubmissionsPerMinute *int
	BatchesInFlight           *int
	// AIMaxAmount and AIDailyAmount are the AI gateway's guardrails in
	// minor units; 0 removes one (null: none).
	AIMaxAmount   *int64
	AIDailyAmount *int64
}

// MarshalJSON sends only the fields set, 0 as null.
func (l LimitsInput) MarshalJSON() ([]byte, error) {
	out := map[string]*int64{}
	put := func(key string, v *int64) {
		switch {
		case v == nil:
		case *v == 0:
			out[key] = nil
		default:
			out[key] = v
		}
	}
	widen := func(v *int) *int64 {
		if v == nil {
			return nil
		}
		w := int64(*v)
		return &w
	}
	put("api_requests_per_minute", widen(l.APIRequestsPerMinute))
	put("batch_submissions_per_minute", widen(l.BatchSubmissionsPerMinute))
	put("batches_in_flight", widen(l.BatchesInFlight))
	put("ai_max_amount", l.AIMaxAmount)
	put("ai_daily_amount", l.AIDailyAmount)
	return json.Marshal(out)
}

// TokenInput is the body of a token creation.
type TokenInput struct {
	Name      string     `json:"name"`
	Abilities []string   `json:"abilities"`
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
}

// ListOptions selects a page of a collection; zero values use the server's
// defaults.
type ListOptions struct {
	Page    int
	PerPage int
}

// Meta describes where a page sits in its collection.
type Meta struct {
	CurrentPage int `json:"current_page"`
	PerPage     int `json:"per_page"`
	Total       int `json:"total"`
	LastPage    int `json:"last_page"`
}

// TenantPage is a page of tenants.
type TenantPage struct {
	Data []Tenant `json:"data"`
	Meta Meta     `json:"meta"`
}

// TokenPage is a page of a tenant's tokens.
type TokenPage struct {
	Data []Token `json:"data"`
	Meta Meta    `json:"meta"`
}
