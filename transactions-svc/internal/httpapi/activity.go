package httpapi

import (
	"net/http"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/apitime"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/transactions-svc/internal/app"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
	"github.com/paylane/paylane/transactions-svc/internal/wire"
)

// activity answers GET /internal/v1/{receivables|payables}/{id}/activity
// with {data: {transitions, messages}}: the item's state history and its
// SMS with their states, for the dashboard's detail page. It needs the
// view ability of the direction, like GET /api/v1/{receivables|payables}/{id}.
func (h *Handlers) activity(d txn.Direction) fiber.Handler {
	return func(c *fiber.Ctx) error {
		a, err := h.app.Activity(c.UserContext(), scope(c), d, strings.Clone(c.Params("id")))
		if err != nil {
			return err
		}
		return httpx.Data(c, http.StatusOK, newActivity(a))
	}
}

func newActivity(a app.Activity) wire.Activity {
	out := wire.Activity{Transitions: make([]wire.Transition, len(a.Transitions)), Messages: make([]wire.Message, len(a.Messages))}
	for i, t := range a.Transitions {
		out.Transitions[i] = wire.Transition{From: orNull(t.From), To: t.To, At: apitime.Format(t.At)}
	}
	for i, m := range a.Messages {
		out.Messages[i] = wire.Message{ID: m.ID, Kind: m.Kind, Status: orNull(m.Status), RequestedAt: apitime.Format(m.RequestedAt),
			SentAt: apitime.FormatPtr(m.SentAt), UpdatedAt: apitime.FormatPtr(m.UpdatedAt)}
	}
	return out
}

func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// summary answers GET /internal/v1/{receivables|payables}/summary?created_since=
// with {data: [{status, currency, count, amount}]}: the live items created
// at or after created_since (RFC 3339, required) counted and their amounts
// summed per status and currency, in one query, for the dashboard's
// overview. It needs the list's view-any ability.
func (h *Handlers) summary(d txn.Direction) fiber.Handler {
	return func(c *fiber.Ctx) error {
		q := httpx.Queries(c)
		raw := q.Text("created_since")
		if err := q.Err(); err != nil {
			return err
		}
		since, err := time.Parse(time.RFC3339Nano, raw)
		if err != nil {
			return apierr.Field("created_since", "The created_since must be an ISO 8601 date-time.")
		}
		sums, err := h.app.Summary(c.UserContext(), scope(c), d, since.UTC())
		if err != nil {
			return err
		}
		out := make([]wire.StatusSum, len(sums))
		for i, s := range sums {
			out[i] = wire.StatusSum{Status: s.Status, Currency: s.Currency, Count: s.Count, Amount: s.Amount}
		}
		return httpx.Data(c, http.StatusOK, out)
	}
}
