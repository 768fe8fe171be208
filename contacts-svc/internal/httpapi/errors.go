package httpapi

import (
	"errors"
	"net/http"

	"github.com/paylane/paylane/contacts-svc/internal/app"
	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/libs/apierr"
)

// apiError maps a use-case error to the API error it renders as; anything
// unknown passes through for the error handler to log and answer 500.
// Handlers return apiError(err) so that idempotency.Middleware can store
// the 4xx answers.
func apiError(err error) error {
	var (
		ve *contact.ValidationError
		te *contact.TransitionError
		ae *apierr.Error
	)
	switch {
	case errors.As(err, &ve):
		return apierr.Validation(ve.Fields)
	case errors.As(err, &te):
		return apierr.InvalidTransition(string(te.From), string(te.To))
	case errors.Is(err, contact.ErrNotFound):
		return apierr.NotFound()
	case errors.Is(err, app.ErrBulkConflict):
		e := apierr.New(http.StatusServiceUnavailable, apierr.CodeServiceUnavailable,
			"Another write touched these contacts; retry the request.")
		e.RetryAfter = 1
		return e
	case errors.Is(err, app.ErrBulkTimedOut):
		e := apierr.New(http.StatusServiceUnavailable, apierr.CodeServiceUnavailable,
			"The chunk took too long and was not written; retry the request.")
		e.RetryAfter = 1
		return e
	case errors.Is(err, contact.ErrUnavailable):
		e := apierr.New(http.StatusServiceUnavailable, apierr.CodeServiceUnavailable,
			"The service is temporarily unavailable. Please retry.")
		e.RetryAfter = 1
		return e
	case errors.Is(err, contact.ErrPhoneTaken):
		return apierr.Field("phone", contact.MsgPhoneTaken)
	case errors.Is(err, contact.ErrExternalIDTaken):
		return apierr.Field("external_id", contact.MsgExternalIDTaken)
	case errors.Is(err, contact.ErrKeyTaken):
		return apierr.Field("key", "The key has already been taken.")
	case errors.As(err, &ae):
		return ae
	}
	return err
}
