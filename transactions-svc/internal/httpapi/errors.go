package httpapi

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/transactions-svc/internal/app"
	"github.com/paylane/paylane/transactions-svc/internal/campaign"
	"github.com/paylane/paylane/transactions-svc/internal/fielddef"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
	"github.com/paylane/paylane/transactions-svc/internal/verr"
)

// apiError maps a use-case error to the API error it renders as, once for
// every handler; anything unknown passes through for the error handler to
// log and answer 500.
func apiError(err error) error {
	var (
		ve *verr.Error
		te *txn.TransitionError
		ae *apierr.Error
		le *app.AILimitError
	)
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &ve):
		return apierr.Validation(ve.Fields)
	case errors.As(err, &te):
		return apierr.InvalidTransition(string(te.From), string(te.To))
	case errors.As(err, &le):
		return aiLimitError(le)
	case errors.Is(err, txn.ErrNotFound), errors.Is(err, fielddef.ErrNotFound), errors.Is(err, campaign.ErrNotFound):
		return apierr.NotFound()
	case errors.Is(err, txn.ErrAlreadyPaid):
		return apierr.New(http.StatusConflict, apierr.CodeAlreadyPaid, "The receivable is already paid and cannot be cancelled.")
	case errors.Is(err, campaign.ErrAlreadyAssigned):
		return apierr.New(http.StatusConflict, apierr.CodeAlreadyAssigned,
			"The transaction is already assigned to a campaign; send reassign true to change it.")
	case errors.Is(err, campaign.ErrNotAssignable):
		return apierr.Field("campaign_id", campaign.MsgNotAssignable)
	case errors.Is(err, fielddef.ErrKeyTaken):
		return apierr.Field("key", "The key has already been taken.")
	case errors.Is(err, app.ErrUnavailable):
		e := apierr.New(http.StatusServiceUnavailable, apierr.CodeServiceUnavailable, "A part of the platform is briefly unavailable; retry.")
		e.RetryAfter = 1
		return e
	}
	return err
}

// aiLimitError renders a guardrail refusal: 422 ai_limit_exceeded naming
// the limit, with what an agent needs to explain it or to retry with less.
func aiLimitError(le *app.AILimitError) *apierr.Error {
	msg := fmt.Sprintf("The amount %d exceeds the tenant's AI gateway limit limits.%s (%d per transaction).", le.Amount, le.Limit, le.Max)
	details := map[string]any{"limit": le.Limit, "max": le.Max, "amount": le.Amount}
	if le.Limit == app.LimitAIDailyAmount {
		msg = fmt.Sprintf("The amount %d with the %d already confirmed today (UTC) exceeds the tenant's AI gateway limit limits.%s (%d per day).",
			le.Amount, le.ConfirmedToday, le.Limit, le.Max)
		details["confirmed_today"] = le.ConfirmedToday
	}
	return &apierr.Error{Status: http.StatusUnprocessableEntity, Code: apierr.CodeAILimitExceeded, Message: msg, Details: details}
}
