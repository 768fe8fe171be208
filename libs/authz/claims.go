// Package authz holds the internal JWT that the gateway forwards to services
// (claims, signing, verification with a JWKS), the ability catalogue, and the
// policy gates services put in front of their handlers.
package authz

import (
	"github.com/golang-jwt/jwt/v5"
)

// Issuer is the iss claim of internal tokens.
const Issuer = "paylane-identity"

// Audience is the aud claim of internal tokens.
const Audience = "paylane-services"

// Flags are the tenant's feature flags.
type Flags struct {
	AIGateway bool `json:"ai_gateway"`
	OptIn     bool `json:"opt_in"`
}

// Limits are the tenant's limits; zero means the deployment default. The
// AI gateway's guardrails are in minor units, nil meaning none.
type Limits struct {
	APIRequestsPerMinute      int `json:"api_requests_per_minute"`
	BatchSubmissionsPerMinute int `json:"batch_submissions_per_minute"`
	BatchesInFlight           int `json:"batches_in_flight"`
	// AIMaxAmount bounds one transaction prepared through the AI gateway.
	AIMaxAmount *int64 `json:"ai_max_amount"`
	// AIDailyAmount bounds the sum of the AI gateway transactions confirmed
	// in one UTC day.
	AIDailyAmount *int64 `json:"ai_daily_amount"`
}

// Claims are the claims of an internal token: who is calling, for which
// tenant, with which abilities.
type Claims struct {
	jwt.RegisteredClaims
	TenantID  string   `json:"tenant_id"`
	TokenID   int64    `json:"token_id"`
	Abilities []string `json:"abilities"`
	Flags     Flags    `json:"flags"`
	Limits    Limits   `json:"limits"`
	// Region is the tenant's default region (ISO 3166-1 alpha-2) used to read
	// national phone formats; Currency its default ISO 4217 currency.
	Region    string `json:"region,omitempty"`
	Currency  string `json:"currency,omitempty"`
	RequestID string `json:"request_id,omitempty"`
}

// Has reports whether the claims hold the ability.
func (c *Claims) Has(ability string) bool {
	for _, a := range c.Abilities {
		if a == ability {
			return true
		}
	}
	return false
}
