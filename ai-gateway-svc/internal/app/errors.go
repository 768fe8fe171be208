package app

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	contacts "github.com/paylane/paylane/contacts-svc/client"
	transactions "github.com/paylane/paylane/transactions-svc/client"

	"github.com/paylane/paylane/libs/apierr"
)

// unavailableRetryAfter is the Retry-After of a 503 (seconds).
const unavailableRetryAfter = 5

// APIError maps a peer's error to the API error it renders as: a 4xx answer
// passes through with its status, code, message and details; a 5xx answer,
// an open circuit breaker or a peer that cannot be reached is 503
// service_unavailable. The caller giving up passes through unchanged.
func APIError(err error) error {
	var ce *contacts.Error
	var te *transactions.Error
	switch {
	case errors.As(err, &ce) && ce.Status < http.StatusInternalServerError:
		return passthrough(ce.Status, ce.Code, ce.Message, ce.Details)
	case errors.As(err, &te) && te.Status < http.StatusInternalServerError:
		return passthrough(te.Status, te.Code, te.Message, te.Details)
	case errors.Is(err, context.Canceled):
		return err
	}
	e := apierr.New(http.StatusServiceUnavailable, apierr.CodeServiceUnavailable,
		"A service the AI gateway needs is unavailable; retry shortly.")
	e.RetryAfter = unavailableRetryAfter
	return e
}

// passthrough renders a peer's error answer as it was.
func passthrough(status int, code, message string, details json.RawMessage) *apierr.Error {
	if code == "" {
		code = apierr.CodeBadRequest
	}
	e := apierr.New(status, code, message)
	if len(details) > 0 && string(details) != "null" {
		e.Details = details
	}
	return e
}

// statusOf is the HTTP status of a peer's error answer, or 0.
func statusOf(err error) int {
	if s := transactions.StatusOf(err); s != 0 {
		return s
	}
	return contacts.StatusOf(err)
}
