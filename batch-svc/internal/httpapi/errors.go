package httpapi

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/paylane/paylane/batch-svc/internal/batch"
	"github.com/paylane/paylane/libs/apierr"
)

// apiError maps a use-case error to the API error it renders as; anything
// unknown passes through for the error handler to log and answer 500.
func apiError(err error) error {
	var ve *batch.ValidationError
	var le *batch.LimitError
	switch {
	case errors.As(err, &ve):
		return apierr.Validation(ve.Fields)
	case errors.As(err, &le):
		return limitError(le)
	case errors.Is(err, batch.ErrNotFound):
		return apierr.NotFound()
	case errors.Is(err, batch.ErrForbidden):
		return apierr.Forbidden()
	case errors.Is(err, batch.ErrUnavailable):
		e := apierr.New(http.StatusServiceUnavailable, apierr.CodeServiceUnavailable,
			"A service the submission needs is unavailable; retry shortly.")
		e.RetryAfter = 5
		return e
	case errors.Is(err, batch.ErrTypeUnsupported):
		e := apierr.New(http.StatusServiceUnavailable, apierr.CodeServiceUnavailable,
			"Batches of this type cannot be submitted yet: their records' service does not accept batches.")
		return e
	}
	return err
}

// limitError renders a refused submission: 429 with Retry-After, and the
// limit's X-RateLimit-Limit and X-RateLimit-Remaining.
func limitError(le *batch.LimitError) *apierr.Error {
	e := apierr.New(http.StatusTooManyRequests, apierr.CodeRateLimited,
		"Too many batch submissions; retry after "+strconv.Itoa(le.RetryAfter)+" seconds.")
	if le.InFlight {
		e = apierr.New(http.StatusTooManyRequests, apierr.CodeBatchConcurrencyLimit,
			"The tenant already has "+strconv.Itoa(le.Limit)+" batches in flight; retry when one has finished.")
	}
	e.RetryAfter = le.RetryAfter
	e.Headers = map[string]string{"X-RateLimit-Limit": strconv.Itoa(le.Limit), "X-RateLimit-Remaining": "0"}
	return e
}
