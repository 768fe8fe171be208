// Package apierr defines the error envelope every /api/v1 response uses and
// the stable error codes integrators switch on.
package apierr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
)

// Stable error codes (spec section 7, contract section 3).
const (
	CodeBadRequest            = "bad_request"
	CodeUnauthenticated       = "unauthenticated"
	CodeInvalidSignature      = "invalid_signature"
	CodeForbidden             = "forbidden"
	CodeResourceNotFound      = "resource_not_found"
	CodeRouteNotFound         = "route_not_found"
	CodeMethodNotAllowed      = "method_not_allowed"
	CodeIdempotencyConflict   = "idempotency_conflict"
	CodeIdempotencyInProgress = "idempotency_in_progress"
	CodeAlreadyPaid           = "already_paid"
	CodeAlreadyAssigned       = "already_assigned"
	CodeLinkExpired           = "link_expired"
	CodeLinkRevoked           = "link_revoked"
	CodePayloadTooLarge       = "payload_too_large"
	CodeBatchPayloadTooLarge  = "batch_payload_too_large"
	CodeCSRFTokenMismatch     = "csrf_token_mismatch"
	CodeValidationFailed      = "validation_failed"
	CodeInvalidTransition     = "invalid_transition"
	CodeRateLimited           = "rate_limited"
	CodeBatchConcurrencyLimit = "batch_concurrency_limit_reached"
	CodeAILimitExceeded       = "ai_limit_exceeded"
	CodeServerError           = "server_error"
	CodeServiceUnavailable    = "service_unavailable"
)

// Error is an API error: an HTTP status, a stable code, a human message and
// optional details. It renders as the envelope of spec section 7.
type Error struct {
	Status  int
	Code    string
	Message string
	// Details is a map of field name to messages for validation errors, or
	// any JSON object for other codes (invalid_transition carries from/to).
	Details any
	// RetryAfter, when positive, is sent as the Retry-After header (seconds).
	RetryAfter int
	// Headers are extra response headers (for example Allow on 405).
	Headers map[string]string
}

// Error implements the error interface.
func (e *Error) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message) }

// New returns an error with the given status, code and message.
func New(status int, code, message string) *Error {
	return &Error{Status: status, Code: code, Message: message}
}

// Envelope is the JSON body of every error response.
type Envelope struct {
	Error Body `json:"error"`
}

// Body is the content of the error envelope.
type Body struct {
	Code      string `json:"code"`
	Message   string `json:"message"`
	Details   any    `json:"details,omitempty"`
	RequestID string `json:"request_id,omitempty"`
}

// Marshal renders the error envelope with the given request id. HTML
// characters are kept as they are ("paid -> cancelled", not "\u003e").
func (e *Error) Marshal(requestID string) []byte {
	b, err := encode(Envelope{Error: Body{Code: e.Code, Message: e.Message, Details: e.Details, RequestID: requestID}})
	if err != nil { // details that cannot be encoded: drop them rather than fail the response
		b, _ = encode(Envelope{Error: Body{Code: e.Code, Message: e.Message, RequestID: requestID}})
	}
	return b
}

func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Validation returns a 422 validation_failed error whose details map each
// field to its messages.
func Validation(details map[string][]string) *Error {
	return &Error{Status: http.StatusUnprocessableEntity, Code: CodeValidationFailed,
		Message: "The given data was invalid.", Details: details}
}

// Field returns a 422 validation_failed error for a single field.
func Field(field, message string) *Error {
	return Validation(map[string][]string{field: {message}})
}

// InvalidTransition returns the 422 a state machine answers for a refused
// move; the message names the pair as "<from> -> <to>".
func InvalidTransition(from, to string) *Error {
	return &Error{Status: http.StatusUnprocessableEntity, Code: CodeInvalidTransition,
		Message: from + " -> " + to, Details: map[string]string{"from": from, "to": to}}
}

// NotFound returns 404 resource_not_found.
func NotFound() *Error {
	return New(http.StatusNotFound, CodeResourceNotFound, "The requested resource was not found.")
}

// RouteNotFound returns 404 route_not_found.
func RouteNotFound() *Error {
	return New(http.StatusNotFound, CodeRouteNotFound, "The requested endpoint does not exist.")
}

// Unauthenticated returns 401 unauthenticated.
func Unauthenticated() *Error {
	return New(http.StatusUnauthorized, CodeUnauthenticated, "Unauthenticated.")
}

// Forbidden returns 403 forbidden.
func Forbidden() *Error {
	return New(http.StatusForbidden, CodeForbidden, "This action is unauthorized.")
}

// BadRequest returns 400 bad_request.
func BadRequest(message string) *Error {
	return New(http.StatusBadRequest, CodeBadRequest, message)
}

// Internal returns 500 server_error with a message that reveals nothing.
func Internal() *Error {
	return New(http.StatusInternalServerError, CodeServerError, "Server error.")
}

// APIError returns e itself: an *Error is its own API answer.
func (e *Error) APIError() *Error { return e }

// Answerer is an error that carries its API answer. Domain errors implement
// it (a *Sentinel, or a small type with an APIError method), so the HTTP
// layer maps every error in one place (httpx.APIError) and no handler maps
// by hand.
type Answerer interface {
	error
	APIError() *Error
}

// From returns the API answer of the first error in err's chain that carries
// one (an Answerer), or false when none does.
func From(err error) (*Error, bool) {
	var a Answerer
	if !errors.As(err, &a) {
		return nil, false
	}
	e := a.APIError()
	return e, e != nil
}

// Sentinel is a domain error value that carries its API answer: compared
// with errors.Is by identity (each NewSentinel is a distinct value, even
// with the same answer), wrapped with %w like any sentinel, and answered by
// the HTTP layer with its status, code and message.
type Sentinel struct {
	text   string
	answer Error
}

// NewSentinel returns a sentinel whose Error is text (for logs: lower case,
// prefixed with its package, as "contact: not found") and whose API answer
// is answer.
func NewSentinel(text string, answer *Error) *Sentinel {
	return &Sentinel{text: text, answer: *answer}
}

// Error implements the error interface.
func (s *Sentinel) Error() string { return s.text }

// APIError returns a copy of the sentinel's answer.
func (s *Sentinel) APIError() *Error {
	e := s.answer
	if s.answer.Headers != nil {
		e.Headers = maps.Clone(s.answer.Headers)
	}
	return &e
}

// Unavailable returns 503 service_unavailable with message and Retry-After
// (seconds).
func Unavailable(message string, retryAfter int) *Error {
	e := New(http.StatusServiceUnavailable, CodeServiceUnavailable, message)
	e.RetryAfter = retryAfter
	return e
}

// Conflict returns 409 with code and message (already_paid, already_assigned).
func Conflict(code, message string) *Error {
	return New(http.StatusConflict, code, message)
}
