// Package wire renders webhook-svc's resources as the API shows them.
package wire

import (
	"github.com/paylane/paylane/libs/apitime"
	"github.com/paylane/paylane/webhook-svc/internal/webhook"
)

// Endpoint is a webhook endpoint in API responses, with its health fields.
// SigningSecret is set only in the create and rotate-secret responses.
type Endpoint struct {
	ID                  string   `json:"id"`
	Name                string   `json:"name"`
	URL                 string   `json:"url"`
	SubscribedEvents    []string `json:"subscribed_events"`
	IsActive            bool     `json:"is_active"`
	SigningSecret       string   `json:"signing_secret,omitempty"`
	ConsecutiveFailures int      `json:"consecutive_failures"`
	LastSucceededAt     *string  `json:"last_succeeded_at"`
	LastFailedAt        *string  `json:"last_failed_at"`
	DisabledAt          *string  `json:"disabled_at"`
	CreatedAt           string   `json:"created_at"`
	UpdatedAt           string   `json:"updated_at"`
}

// NewEndpoint renders e without its secret.
func NewEndpoint(e webhook.Endpoint) Endpoint {
	events := e.SubscribedEvents
	if events == nil {
		events = []string{}
	}
	return Endpoint{
		ID: e.ID, Name: e.Name, URL: e.URL, SubscribedEvents: events, IsActive: e.IsActive,
		ConsecutiveFailures: e.ConsecutiveFailures, LastSucceededAt: apitime.FormatPtr(e.LastSucceededAt),
		LastFailedAt: apitime.FormatPtr(e.LastFailedAt), DisabledAt: apitime.FormatPtr(e.DisabledAt),
		CreatedAt: apitime.Format(e.CreatedAt), UpdatedAt: apitime.Format(e.UpdatedAt),
	}
}

// NewEndpointWithSecret renders e with its plaintext secret.
func NewEndpointWithSecret(e webhook.WithSecret) Endpoint {
	out := NewEndpoint(e.Endpoint)
	out.SigningSecret = e.SigningSecret
	return out
}

// Endpoints renders a list of endpoints.
func Endpoints(list []webhook.Endpoint) []Endpoint {
	out := make([]Endpoint, 0, len(list))
	for _, e := range list {
		out = append(out, NewEndpoint(e))
	}
	return out
}

// Delivery is a row of the deliveries list: the latest attempt's outcome on
// the row, every attempt in attempts.
type Delivery struct {
	ID             string    `json:"id"`
	EndpointID     string    `json:"endpoint_id"`
	EventID        string    `json:"event_id"`
	EventType      string    `json:"event_type"`
	Status         string    `json:"status"`
	AttemptCount   int       `json:"attempt_count"`
	ResponseStatus *int      `json:"response_status"`
	LastError      *string   `json:"last_error"`
	NextAttemptAt  *string   `json:"next_attempt_at"`
	DeliveredAt    *string   `json:"delivered_at"`
	CreatedAt      string    `json:"created_at"`
	Attempts       []Attempt `json:"attempts"`
}

// Attempt is one HTTP request of a delivery.
type Attempt struct {
	Number         int     `json:"number"`
	Status         string  `json:"status"`
	ResponseStatus *int    `json:"response_status"`
	Error          *string `json:"error"`
	AttemptedAt    string  `json:"attempted_at"`
	DurationMS     int     `json:"duration_ms"`
}

// Deliveries renders a page of deliveries.
func Deliveries(list []webhook.Delivery) []Delivery {
	out := make([]Delivery, 0, len(list))
	for _, d := range list {
		row := Delivery{
			ID: d.ID, EndpointID: d.EndpointID, EventID: d.EventID, EventType: d.EventType, Status: d.Status,
			AttemptCount: d.AttemptCount, ResponseStatus: d.ResponseStatus, LastError: d.LastError,
			NextAttemptAt: apitime.FormatPtr(d.NextAttemptAt), DeliveredAt: apitime.FormatPtr(d.DeliveredAt),
			CreatedAt: apitime.Format(d.CreatedAt), Attempts: make([]Attempt, 0, len(d.Attempts)),
		}
		for _, a := range d.Attempts {
			status := "failed"
			if a.Succeeded {
				status = "succeeded"
			}
			row.Attempts = append(row.Attempts, Attempt{
				Number: a.Number, Status: status, ResponseStatus: a.ResponseStatus, Error: a.Error,
				AttemptedAt: apitime.Format(a.AttemptedAt), DurationMS: a.DurationMS,
			})
		}
		out = append(out, row)
	}
	return out
}

// Failure is a row of the recent failed deliveries (an internal route for
// the dashboard), with its endpoint's name and URL.
type Failure struct {
	ID             string  `json:"id"`
	EndpointID     string  `json:"endpoint_id"`
	EndpointName   string  `json:"endpoint_name"`
	EndpointURL    string  `json:"endpoint_url"`
	EventID        string  `json:"event_id"`
	EventType      string  `json:"event_type"`
	Status         string  `json:"status"`
	AttemptCount   int     `json:"attempt_count"`
	ResponseStatus *int    `json:"response_status"`
	LastError      *string `json:"last_error"`
	LastAttemptAt  string  `json:"last_attempt_at"`
}

// Failures renders recent failed deliveries.
func Failures(list []webhook.Failure) []Failure {
	out := make([]Failure, 0, len(list))
	for _, f := range list {
		out = append(out, Failure{ID: f.ID, EndpointID: f.EndpointID, EndpointName: f.EndpointName, EndpointURL: f.EndpointURL,
			EventID: f.EventID, EventType: f.EventType, Status: f.Status, AttemptCount: f.AttemptCount,
			ResponseStatus: f.ResponseStatus, LastError: f.LastError, LastAttemptAt: apitime.Format(f.LastAttemptAt)})
	}
	return out
}
