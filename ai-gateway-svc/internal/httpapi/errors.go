package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/gofiber/fiber/v2"

	contacts "github.com/paylane/paylane/contacts-svc/client"
	transactions "github.com/paylane/paylane/transactions-svc/client"

	"github.com/paylane/paylane/libs/apierr"
)

// unavailableRetryAfter is the Retry-After of a 503 (seconds).
const unavailableRetryAfter = 5

// peerErrors is the one mapping of the routes' errors, mounted on the group:
// an error that carries its API answer (the handlers' own 4xx) and the
// caller giving up pass through to the error handler; a peer's 4xx answer
// passes through with its status, code, message and details; a 5xx answer,
// an open circuit breaker or a peer that cannot be reached is 503
// service_unavailable.
func peerErrors(c *fiber.Ctx) error {
	err := c.Next()
	if _, ok := apierr.From(err); ok || err == nil {
		return err
	}
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
