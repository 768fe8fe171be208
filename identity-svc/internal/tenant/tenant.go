// Package tenant is the domain of tenants: the central routing table of a
// deployment. A tenant carries its defaults (currency, region), its SMS
// sender number, its feature flags and its limit overrides. The package
// knows neither HTTP nor SQL.
package tenant

import (
	"time"

	"github.com/paylane/paylane/libs/apierr"
)

// Deployment defaults for a tenant that has no override (spec section 8).
const (
	DefaultAPIRequestsPerMinute      = 60
	DefaultBatchSubmissionsPerMinute = 10
	DefaultBatchesInFlight           = 2

	DefaultCurrency = "USD"
	DefaultRegion   = "US"

	// MaxNameLength is the longest tenant name accepted.
	MaxNameLength = 120
	// MaxLimit bounds every limit override; anything larger is a typo.
	MaxLimit = 1_000_000
	// MaxAIAmount bounds the AI gateway's guardrails (minor units).
	MaxAIAmount = 1_000_000_000_000
)

// ErrNotFound is returned when no tenant has the requested id.
var ErrNotFound = apierr.NewSentinel("tenant not found", apierr.NotFound())

// ErrSMSNumberTaken is returned when another tenant already uses the SMS
// sender number (inbound SMS is routed to a tenant by that number).
var ErrSMSNumberTaken = apierr.NewSentinel("sms number already used by another tenant",
	apierr.Field("sms_number", "The sms number has already been taken."))

// Flags are the tenant's feature flags.
type Flags struct {
	AIGateway bool
	OptIn     bool
}

// Limits are the tenant's limit overrides; zero means the deployment default.
// The AI gateway's guardrails (minor units) have no default: zero is none.
type Limits struct {
	APIRequestsPerMinute      int
	BatchSubmissionsPerMinute int
	BatchesInFlight           int
	// AIMaxAmount bounds one transaction prepared through the AI gateway.
	AIMaxAmount int64
	// AIDailyAmount bounds the sum of the AI gateway transactions
	// confirmed in one UTC day.
	AIDailyAmount int64
}

// Effective returns the limits with every zero replaced by the deployment
// default: the values the gateway and the services enforce.
func (l Limits) Effective() Limits {
	return Limits{
		APIRequestsPerMinute:      orDefault(l.APIRequestsPerMinute, DefaultAPIRequestsPerMinute),
		BatchSubmissionsPerMinute: orDefault(l.BatchSubmissionsPerMinute, DefaultBatchSubmissionsPerMinute),
		BatchesInFlight:           orDefault(l.BatchesInFlight, DefaultBatchesInFlight),
		AIMaxAmount:               l.AIMaxAmount,
		AIDailyAmount:             l.AIDailyAmount,
	}
}

func orDefault(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}

// Tenant is an isolated organisation with its own dataset.
type Tenant struct {
	ID              string
	Name            string
	DefaultCurrency string
	DefaultRegion   string
	// SMSNumber is the E.164 sender number, or "" when the tenant has none.
	SMSNumber string
	Flags     Flags
	// Limits holds the overrides as stored (zero = deployment default); use
	// Limits.Effective for the values in force.
	Limits    Limits
	CreatedAt time.Time
	UpdatedAt time.Time
}

// New returns a tenant with the given id and creation time, the deployment
// defaults filled in, ready for Apply.
func New(id string, now time.Time) Tenant {
	return Tenant{
		ID:              id,
		DefaultCurrency: DefaultCurrency,
		DefaultRegion:   DefaultRegion,
		CreatedAt:       now,
		UpdatedAt:       now,
	}
}
