// Package webhook is webhook-svc's domain: endpoints, their signing secrets,
// deliveries and the retry schedule. It knows neither HTTP nor SQL.
package webhook

import (
	"time"

	"github.com/paylane/paylane/libs/apierr"
)

// Errors of the domain; httpapi maps them to the API's codes.
var (
	// ErrNotFound: no such endpoint in the tenant (or it was deleted).
	ErrNotFound = apierr.NewSentinel("webhook endpoint not found", apierr.NotFound())
)

// ValidationError names each invalid field with its messages (422).
type ValidationError struct {
	Fields map[string][]string
}

func (e *ValidationError) Error() string { return "invalid webhook endpoint" }

// APIError answers 422 validation_failed with the fields' messages.
func (e *ValidationError) APIError() *apierr.Error { return apierr.Validation(e.Fields) }

// Endpoint is a tenant's webhook endpoint as the API shows it. The signing
// secret is not part of it: it travels only in SecretEndpoint, once.
type Endpoint struct {
	ID                  string
	TenantID            string
	Name                string
	URL                 string
	SubscribedEvents    []string
	IsActive            bool
	ConsecutiveFailures int
	LastSucceededAt     *time.Time
	LastFailedAt        *time.Time
	DisabledAt          *time.Time
	CreatedAt           time.Time
	UpdatedAt           time.Time
}

// WithSecret is an endpoint with its plaintext signing secret: the answer of
// create and rotate-secret, the only times the secret is shown.
type WithSecret struct {
	Endpoint
	SigningSecret string
}

// Delivery statuses (contract section 9).
const (
	StatusPending   = "pending"
	StatusSucceeded = "succeeded"
	StatusRetrying  = "retrying"
	StatusFailed    = "failed"
	StatusCancelled = "cancelled"
)

// Statuses lists every delivery status, for filter validation.
func Statuses() []string {
	return []string{StatusPending, StatusSucceeded, StatusRetrying, StatusFailed, StatusCancelled}
}

// Open reports whether a delivery in status may still be attempted.
func Open(status string) bool { return status == StatusPending || status == StatusRetrying }

// Delivery is one event on its way to one endpoint: a row of the deliveries
// list, with every attempt made so far.
type Delivery struct {
	ID             string
	EndpointID     string
	EventID        string
	EventType      string
	Status         string
	AttemptCount   int
	ResponseStatus *int
	LastError      *string
	NextAttemptAt  *time.Time
	DeliveredAt    *time.Time
	CreatedAt      time.Time
	Attempts       []Attempt
}

// Attempt is one HTTP request of a delivery to its endpoint.
type Attempt struct {
	Number         int
	Succeeded      bool
	ResponseStatus *int
	Error          *string
	AttemptedAt    time.Time
	DurationMS     int
}

// DisableThreshold is the number of consecutive failed attempts after which
// an endpoint is disabled (spec section 8).
const DisableThreshold = 50

// PreviousSecretGrace is how long the secret replaced by rotate-secret still
// signs deliveries, as a second signature.
const PreviousSecretGrace = 24 * time.Hour

// Failure is a delivery whose last attempt failed, with the name and URL
// of its endpoint: a row of the dashboard's recent failures.
type Failure struct {
	ID             string
	EndpointID     string
	EndpointName   string
	EndpointURL    string
	EventID        string
	EventType      string
	Status         string
	AttemptCount   int
	ResponseStatus *int
	LastError      *string
	LastAttemptAt  time.Time
}
