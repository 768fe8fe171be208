package web

import (
	"context"
	"net/http"
	"slices"
	"sync"

	"github.com/gofiber/fiber/v2"
)

// Transactions is what the dashboard asks transactions-svc
// (transactions-svc/client), with the signed-in user's internal token.
type Transactions interface {
	Count(ctx context.Context, token, direction, status string) (int, error)
}

// Statuses of receivables and payables, in their life's order (contract
// section 6).
var (
	receivableStatuses = []string{"draft", "scheduled", "pending", "processing", "paid", "failed", "cancelled", "expired"}
	payableStatuses    = []string{"draft", "scheduled", "pending", "destination_selected", "verified", "processing",
		"disbursed", "failed", "cancelled", "expired"}
)

// statusCount is one row of the overview.
type statusCount struct {
	Status string
	Count  int
}

// direction is one table of the overview.
type direction struct {
	Title  string
	Rows   []statusCount
	Total  int
	Denied bool
}

const (
	abilityViewReceivables = "api:view-any-receivable"
	abilityViewPayables    = "api:view-any-payable"
)

// canOverview reports whether the user's role reads receivables or payables.
func canOverview(abilities []string) bool {
	return slices.Contains(abilities, abilityViewReceivables) || slices.Contains(abilities, abilityViewPayables)
}

// overviewPage counts the tenant's receivables and payables by status,
// with the user's internal token: the API's gates and tenant scope apply.
func (a *App) overviewPage(c *fiber.Ctx) error {
	u := currentUser(c)
	if !canOverview(u.Abilities) {
		return &pageError{status: http.StatusForbidden}
	}
	token, err := a.userToken(c)
	if err != nil {
		return err
	}
	var tables []*direction
	var jobs []func() error
	add := func(title, dir, ability string, statuses []string) {
		if !slices.Contains(u.Abilities, ability) {
			return
		}
		d := &direction{Title: title, Rows: make([]statusCount, len(statuses))}
		tables = append(tables, d)
		for i, s := range statuses {
			d.Rows[i].Status = s
			jobs = append(jobs, func() error {
				n, err := a.transactions.Count(c.UserContext(), token, dir, s)
				d.Rows[i].Count = n
				return err
			})
		}
	}
	add("Receivables", "receivable", abilityViewReceivables, receivableStatuses)
	add("Payables", "payable", abilityViewPayables, payableStatuses)
	failures := a.failuresJob(c, token, &jobs)
	if err := runAll(jobs); err != nil {
		return err
	}
	for _, d := range tables {
		for _, r := range d.Rows {
			d.Total += r.Count
		}
	}
	return a.render(c, "overview", page{Title: "Overview", Nav: "overview", Data: overviewData{Tables: tables, Failures: failures}})
}

// overviewData is what the overview shows.
type overviewData struct {
	Tables   []*direction
	Failures *recentFailures
}

// runAll runs the jobs at once and returns the first error.
func runAll(jobs []func() error) error {
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	for i, job := range jobs {
		wg.Go(func() { errs[i] = job() })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
