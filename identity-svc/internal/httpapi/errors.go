package httpapi

import (
	"errors"
	"net/http"

	"github.com/paylane/paylane/identity-svc/internal/app"
	"github.com/paylane/paylane/identity-svc/internal/tenant"
	"github.com/paylane/paylane/identity-svc/internal/token"
	"github.com/paylane/paylane/libs/apierr"
)

// apiError maps a use-case error to the API error it renders as; anything
// unknown passes through for the error handler to log and answer 500.
func apiError(err error) error {
	var ve *app.ValidationError
	switch {
	case errors.As(err, &ve):
		return apierr.Validation(ve.Fields)
	case errors.Is(err, tenant.ErrNotFound), errors.Is(err, token.ErrNotFound):
		return apierr.NotFound()
	case errors.Is(err, tenant.ErrSMSNumberTaken):
		return apierr.Field("sms_number", "The sms number has already been taken.")
	case errors.Is(err, token.ErrMalformed), errors.Is(err, token.ErrInvalid),
		errors.Is(err, token.ErrRevoked), errors.Is(err, token.ErrExpired):
		return apierr.Unauthenticated()
	}
	var ae *apierr.Error
	if errors.As(err, &ae) {
		return ae
	}
	return err
}

// statusCreated and friends keep handler code free of bare numbers.
const (
	statusOK      = http.StatusOK
	statusCreated = http.StatusCreated
)
