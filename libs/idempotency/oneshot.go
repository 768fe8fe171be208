package idempotency

import (
	"context"
	"errors"

	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/libs/apierr"
)

// runMode is how a guarded request runs in its transaction.
type runMode int

const (
	classic runMode = iota // Run: the lookup, then the handler
	oneShot                // speculate in one shot (Speculate)
)

func (m runMode) run(ctx context.Context, tx pgx.Tx, req Request, fn func(Tx) (Response, error)) (Response, Replay, error) {
	if m == classic {
		return Run(ctx, tx, req, fn)
	}
	return speculate(ctx, tx, req, fn)
}

func newOptions(opts []Option) options {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// retryable reports whether a one-shot attempt that ended with err runs
// again: any failure of its transaction does, but not a response (stored,
// or not storable such as a 5xx of the handler) nor an ended request.
func retryable(ctx context.Context, err error) bool {
	_, answered := apierr.From(err)
	switch {
	case err == nil, errors.Is(err, ErrNotStored), answered, ctx.Err() != nil:
		return false
	}
	return true
}

// forget undoes what a failed attempt's handler wrote into the response, so
// the next run starts from the response the chain had before.
func forget(c *fiber.Ctx) {
	for _, h := range replayedHeaders {
		c.Response().Header.Del(h)
	}
	c.Response().ResetBody()
	c.Status(fiber.StatusOK)
}
