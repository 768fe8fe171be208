// Package httpx holds the Fiber helpers every service uses the same way: the
// error envelope, request ids, JSON rendering and decoding, pagination and
// the application constructor.
package httpx

import (
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/libs/reqid"
)

// ErrorHandler returns the Fiber error handler that renders every error as
// the envelope of spec section 7, with the answer APIError gives; a 5xx is
// logged with the request id (the client gets no text of the error).
func ErrorHandler(log *slog.Logger) fiber.ErrorHandler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return func(c *fiber.Ctx, err error) error {
		id := ensureRequestID(c)
		e := APIError(err)
		if e.Status >= http.StatusInternalServerError {
			log.ErrorContext(c.UserContext(), "request failed",
				"request_id", id,
				"method", c.Method(),
				// Before routing (e.g. a malformed request) Route().Path is the raw path.
				"route", obs.RedactPath(c.Route().Path),
				"status", e.Status,
				"error", obs.RedactPhone(err.Error()))
		}
		if e.RetryAfter > 0 {
			c.Set(fiber.HeaderRetryAfter, strconv.Itoa(e.RetryAfter))
		}
		for k, v := range e.Headers {
			c.Set(k, v)
		}
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
		return c.Status(e.Status).Send(e.Marshal(id))
	}
}

// APIError is the one mapping of an error to its API answer, used by the
// error handler for every handler and by the idempotency guard for the
// answers it stores: an error that carries its answer (apierr.Answerer: an
// *apierr.Error, a domain *apierr.Sentinel or error type, wrapped or not)
// is answered with it (with Retry-After and its extra headers); Fiber's own
// errors for unknown routes, wrong methods, oversized and malformed requests
// get their stable codes; a database that cannot be reached (connection
// refused, the connection lost, the server shutting down or starting) is
// 503 service_unavailable with Retry-After: 1; anything else is 500
// server_error with a message that reveals nothing.
func APIError(err error) *apierr.Error {
	if ae, ok := apierr.From(err); ok {
		return ae
	}
	var fe *fiber.Error
	if errors.As(err, &fe) {
		switch fe.Code {
		case fiber.StatusNotFound:
			return apierr.RouteNotFound()
		case fiber.StatusMethodNotAllowed:
			return apierr.New(fe.Code, apierr.CodeMethodNotAllowed, "The method is not allowed for this endpoint.")
		case fiber.StatusRequestEntityTooLarge:
			return apierr.New(fe.Code, apierr.CodePayloadTooLarge, "The request body is too large.")
		case fiber.StatusBadRequest:
			return apierr.BadRequest("The request could not be understood.")
		case fiber.StatusTooManyRequests:
			return apierr.New(fe.Code, apierr.CodeRateLimited, "Too many requests.")
		case fiber.StatusServiceUnavailable:
			return apierr.New(fe.Code, apierr.CodeServiceUnavailable, "The service is unavailable.")
		case fiber.StatusRequestHeaderFieldsTooLarge:
			return apierr.New(fe.Code, apierr.CodeBadRequest, "The request headers are too large.")
		case fiber.StatusRequestTimeout:
			// The client did not send the whole request in time (a body
			// shorter than its Content-Length, headers that never end).
			return apierr.New(fe.Code, apierr.CodeBadRequest, "The request was not received in time.")
		case fiber.StatusRequestURITooLong:
			return apierr.New(fe.Code, apierr.CodeBadRequest, "The request URL is too long.")
		}
	}
	if databaseUnavailable(err) {
		return unavailable()
	}
	return apierr.Internal()
}

// ensureRequestID returns the response's X-Request-Id, assigning one when no
// middleware did (errors raised before the chain runs, such as an oversized
// body, never pass through RequestID).
func ensureRequestID(c *fiber.Ctx) string {
	if id := string(c.Response().Header.Peek(reqid.Header)); id != "" {
		return id
	}
	id := reqid.From(c.UserContext())
	if id == "" {
		id = reqid.Resolve(c.Get(reqid.Header))
	}
	id = cloneString(id)
	c.Set(reqid.Header, id)
	return id
}
