package svcclient

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/paylane/paylane/libs/reqid"
)

var (
	// ErrNotFound matches (errors.Is) an *Error that is a 404
	// resource_not_found: the callee has no such resource for the tenant.
	ErrNotFound = errors.New("not found")
	// ErrUnavailable: the tenant's circuit breaker is open; the callee
	// failed the tenant's calls repeatedly and is not called for the tenant
	// for now.
	ErrUnavailable = errors.New("service unavailable")
)

// Error is an answer of a service other than 2xx: its status and the
// fields of its error envelope (empty when the body was not one).
type Error struct {
	// Service is the callee's name.
	Service   string
	Status    int
	Code      string
	Message   string
	RequestID string
	Details   json.RawMessage
}

// Error implements the error interface.
func (e *Error) Error() string {
	if e.Code == "" {
		return fmt.Sprintf("%s answered %d", e.Service, e.Status)
	}
	return fmt.Sprintf("%s answered %d %s: %s", e.Service, e.Status, e.Code, e.Message)
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

// StatusOf returns the HTTP status of an *Error in err's chain, or 0 (no
// answer: transport error, timeout, breaker open).
func StatusOf(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

// decodeError turns an answer other than 2xx into an *Error; the request
// id is the envelope's, else the X-Request-Id of the answer.
func decodeError(service string, a answer) *Error {
	e := &Error{Service: service, Status: a.status, RequestID: a.header.Get(reqid.Header)}
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
