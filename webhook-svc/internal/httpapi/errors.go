package httpapi

import (
	"errors"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/webhook-svc/internal/webhook"
)

// apiError maps a use-case error to the API error it renders as; anything
// unknown passes through for the error handler to log and answer 500.
func apiError(err error) error {
	var ve *webhook.ValidationError
	switch {
	case errors.As(err, &ve):
		return apierr.Validation(ve.Fields)
	case errors.Is(err, webhook.ErrNotFound):
		return apierr.NotFound()
	}
	return err
}
