package app

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/transactions-svc/internal/store"
)

// Names of the AI gateway's guardrails (identity-svc's tenant limits).
const (
	LimitAIMaxAmount   = "ai_max_amount"
	LimitAIDailyAmount = "ai_daily_amount"
)

// AILimitError is an AI gateway transaction refused by one of the tenant's
// guardrails: Limit names it, Max is its value, Amount the transaction's
// amount and ConfirmedToday what the tenant confirmed through the gateway
// in the current UTC day (daily limit only).
type AILimitError struct {
	Limit          string
	Max            int64
	Amount         int64
	ConfirmedToday int64
}

// Error implements the error interface.
func (e *AILimitError) Error() string {
	if e.Limit == LimitAIDailyAmount {
		return fmt.Sprintf("amount %d with %d confirmed today exceeds limits.%s (%d)", e.Amount, e.ConfirmedToday, e.Limit, e.Max)
	}
	return fmt.Sprintf("amount %d exceeds limits.%s (%d)", e.Amount, e.Limit, e.Max)
}

// APIError answers 422 ai_limit_exceeded naming the limit, with what an
// agent needs to explain it or to retry with less.
func (e *AILimitError) APIError() *apierr.Error {
	msg := fmt.Sprintf("The amount %d exceeds the tenant's AI gateway limit limits.%s (%d per transaction).", e.Amount, e.Limit, e.Max)
	details := map[string]any{"limit": e.Limit, "max": e.Max, "amount": e.Amount}
	if e.Limit == LimitAIDailyAmount {
		msg = fmt.Sprintf("The amount %d with the %d already confirmed today (UTC) exceeds the tenant's AI gateway limit limits.%s (%d per day).",
			e.Amount, e.ConfirmedToday, e.Limit, e.Max)
		details["confirmed_today"] = e.ConfirmedToday
	}
	return &apierr.Error{Status: http.StatusUnprocessableEntity, Code: apierr.CodeAILimitExceeded, Message: msg, Details: details}
}

// utcDay is the start of now's UTC day.
func utcDay(now time.Time) time.Time {
	y, m, d := now.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// checkAILimits refuses an AI gateway amount above the tenant's per
// transaction guardrail, or one that would take the day's confirmed sum
// above its daily guardrail. lock takes the tenant's AI day lock first
// (confirm), so the sum stays true until the transaction commits.
func checkAILimits(ctx context.Context, tx *store.Tx, scope Scope, amount int64, now time.Time, lock bool) error {
	if scope.AIMaxAmount > 0 && amount > scope.AIMaxAmount {
		return &AILimitError{Limit: LimitAIMaxAmount, Max: scope.AIMaxAmount, Amount: amount}
	}
	if scope.AIDailyAmount <= 0 {
		return nil
	}
	if lock {
		if err := tx.LockAIDay(ctx); err != nil {
			return err
		}
	}
	sum, err := tx.AIConfirmedSince(ctx, utcDay(now))
	if err != nil {
		return err
	}
	if sum+amount > scope.AIDailyAmount {
		return &AILimitError{Limit: LimitAIDailyAmount, Max: scope.AIDailyAmount, Amount: amount, ConfirmedToday: sum}
	}
	return nil
}
