package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

var (
	// ErrNotFound: no such contact in the tenant (404 resource_not_found).
	ErrNotFound = errors.New("contacts client: contact not found")
	// ErrUnavailable: the tenant's circuit breaker is open; contacts-svc
	// failed the tenant's calls repeatedly and is not called for the
	// tenant for now.
	ErrUnavailable = errors.New("contacts client: contacts-svc unavailable")
)

// Error is an error answer of contacts-svc: the status and the envelope.
type Error struct {
	Status    int
	Code      string
	Message   string
	RequestID string
	Details   json.RawMessage
}

// Error implements the error interface.
func (e *Error) Error() string {
	if e.Code == "" {
		return fmt.Sprintf("contacts-svc answered %d", e.Status)
	}
	return fmt.Sprintf("contacts-svc answered %d %s: %s", e.Status, e.Code, e.Message)
}

// Is makes errors.Is(err, ErrNotFound) true for a 404 resource_not_found.
func (e *Error) Is(target error) bool {
	return target == ErrNotFound && e.Status == http.StatusNotFound && e.Code == "resource_not_found"
}

// Fields returns the messages per field of a 422 validation_failed (for
// example {"phone": ["The phone has already been taken."]}), or nil.
func (e *Error) Fields() map[string][]string {
	var f map[string][]string
	if e.Code != "validation_failed" || json.Unmarshal(e.Details, &f) != nil {
		return nil
	}
	return f
}

func decodeError(a answer) *Error {
	e := &Error{Status: a.status, RequestID: a.requestID}
	var env struct {
		Error struct {
			Code      string          `json:"code"`
			Message   string          `json:"message"`
			Details   json.RawMessage `json:"details"`
			RequestID string          `json:"request_id"`
		} `json:"error"`
	}
	if json.Unmarshal(a.body, &env) == nil {
		e.Code, e.Message, e.Details = env.Error.Code, env.Error.Message, env.Error.Details
		if env.Error.RequestID != "" {
			e.RequestID = env.Error.RequestID
		}
	}
	return e
}

// StatusOf returns the HTTP status of an *Error in err's chain, or 0.
func StatusOf(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}
