package httpapi

import (
	"errors"
	"net/http"

	"github.com/paylane/paylane/identity-svc/internal/app"
	"github.com/paylane/paylane/identity-svc/internal/tenant"
	"github.com/paylane/paylane/identity-svc/internal/token"
	"github.com/paylane/paylane/identity-svc/internal/user"
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
	case errors.Is(err, user.ErrNotFound):
		return apierr.NotFound()
	case errors.Is(err, user.ErrBadCredentials):
		return apierr.New(http.StatusUnauthorized, apierr.CodeUnauthenticated, "These credentials do not match our records.")
	case errors.Is(err, user.ErrForbidden):
		return apierr.Forbidden()
	case isLocked(err):
		return apierr.New(http.StatusTooManyRequests, CodeSignInLocked, "Too many sign-in attempts: try again later.")
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

// CodeSignInLocked is the error code of a sign-in refused during a lockout.
const CodeSignInLocked = "sign_in_locked"

func asLocked(err error) (*user.LockedError, bool) {
	var le *user.LockedError
	ok := errors.As(err, &le)
	return le, ok
}

func isLocked(err error) bool {
	_, ok := asLocked(err)
	return ok
}

// statusCreated and friends keep handler code free of bare numbers.
const (
	statusOK      = http.StatusOK
	statusCreated = http.StatusCreated
)
