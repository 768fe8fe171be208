package web

import (
	"slices"

	"github.com/gofiber/fiber/v2"

	webhooks "github.com/paylane/paylane/webhook-svc/client"
)

// recentFailuresShown is how many failed deliveries the overview lists.
const recentFailuresShown = 5

// failureRow is a failed delivery as the overview lists it.
type failureRow struct {
	webhooks.Failure
	When string
}

// recentFailures is the overview's "Recent failed deliveries" section.
type recentFailures struct {
	Rows []failureRow
	// Unavailable: webhook-svc did not answer; the rest of the overview
	// still shows.
	Unavailable bool
}

// failuresJob adds to jobs the read of the tenant's latest failed
// deliveries, for a user whose role reads webhook endpoints
// (api:view-any-webhook, the gate of the internal route too); nil for
// others. A failing read shows as a sentence, not as an error page.
func (a *App) failuresJob(c *fiber.Ctx, token string, jobs *[]func() error) *recentFailures {
	if !slices.Contains(currentUser(c).Abilities, abilityViewWebhooks) {
		return nil
	}
	out := &recentFailures{}
	*jobs = append(*jobs, func() error {
		list, err := a.webhooks.RecentFailures(c.UserContext(), token, recentFailuresShown)
		if err != nil {
			a.log.Warn("reading recent failed deliveries", "err", err)
			out.Unavailable = true
			return nil
		}
		for _, f := range list {
			out.Rows = append(out.Rows, failureRow{Failure: f, When: apiTime(&f.LastAttemptAt)})
		}
		return nil
	})
	return out
}
