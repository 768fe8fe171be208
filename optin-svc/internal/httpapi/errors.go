package httpapi

import (
	"errors"
	"net/http"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/optin-svc/internal/app"
	"github.com/paylane/paylane/optin-svc/internal/optin"
)

// apiError maps a use-case error to the API error it renders as; anything
// unknown passes through for the error handler to log and answer 500.
func apiError(err error) error {
	var ve *app.ValidationError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ve):
		return apierr.Validation(ve.Fields)
	case errors.Is(err, optin.ErrNotFound):
		return apierr.NotFound()
	case errors.Is(err, optin.ErrUnavailable):
		e := apierr.New(http.StatusServiceUnavailable, apierr.CodeServiceUnavailable, "A part of the platform is briefly unavailable; retry.")
		e.RetryAfter = 5
		return e
	case errors.Is(err, optin.ErrSuppressionLocked):
		return apierr.Field("contact_phone",
			"The number was suppressed by the recipient's STOP reply; only their START reply lifts it.")
	}
	var ae *apierr.Error
	if errors.As(err, &ae) {
		return ae
	}
	return err
}
