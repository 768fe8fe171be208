package web

import (
	"context"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	batches "github.com/paylane/paylane/batch-svc/client"
	transactions "github.com/paylane/paylane/transactions-svc/client"
)

// Transactions is what the dashboard asks transactions-svc
// (transactions-svc/client), with the signed-in user's internal token.
type Transactions interface {
	Summary(ctx context.Context, token, direction string, since time.Time) ([]transactions.StatusSum, error)
	List(ctx context.Context, token, direction string, opts transactions.ListOptions) (*transactions.ItemPage, error)
	Item(ctx context.Context, token, direction, id string) (*transactions.Item, error)
	Activity(ctx context.Context, token, direction, id string) (*transactions.Activity, error)
	Act(ctx context.Context, token, direction, id, action, idempotencyKey string) (*transactions.Item, error)
}

// Statuses of receivables and payables, in their life's order (contract
// section 6).
var (
	receivableStatuses = []string{"draft", "scheduled", "pending", "processing", "paid", "failed", "cancelled", "expired"}
	payableStatuses    = []string{"draft", "scheduled", "pending", "destination_selected", "verified", "processing",
		"disbursed", "failed", "cancelled", "expired"}
)

// overviewWindow is the period the overview counts and sums.
const overviewWindow = 30 * 24 * time.Hour

// statusCount is one row of the overview: the count of a status and the
// sum of its amounts, one per currency ("$42.00 · €7.00"; empty when none).
type statusCount struct {
	Status string
	Count  int
	Amount string
}

// direction is one table of the overview.
type direction struct {
	Title string
	Path  string
	// Since is the window's first day (YYYY-MM-DD), the list filter of
	// the rows' links.
	Since string
	Rows  []statusCount
	Total int
	// Amount is the sum of every status, per currency.
	Amount string
}

// canOverview reports whether the user's role reads receivables or payables.
func canOverview(abilities []string) bool {
	return slices.Contains(abilities, abilityViewReceivables) || slices.Contains(abilities, abilityViewPayables)
}

// overviewData is what the overview shows: the counts and amounts by
// direction, and the last batches for a role that reads batches
// (CanBatches).
type overviewData struct {
	Tables     []*direction
	CanBatches bool
	Batches    []batches.Batch
	// Failures are the recent failed webhook deliveries (nil for a role
	// that does not read webhooks).
	Failures *recentFailures
}

// overviewPage counts the tenant's receivables and payables of the last 30
// days by status and sums their amounts per currency, one call per
// direction, and lists the last batches and failed webhook deliveries, with the user's internal token:
// the API's gates and tenant scope apply.
func (a *App) overviewPage(c *fiber.Ctx) error {
	u := currentUser(c)
	if !canOverview(u.Abilities) {
		return &pageError{status: http.StatusForbidden}
	}
	token, err := a.userToken(c)
	if err != nil {
		return err
	}
	since := a.now().Add(-overviewWindow)
	var tables []*direction
	var jobs []func() error
	add := func(title, dir, ability string, statuses []string) {
		if !slices.Contains(u.Abilities, ability) {
			return
		}
		d := &direction{Title: title, Path: Base + "/" + dir + "s", Since: since.UTC().Format(time.DateOnly)}
		tables = append(tables, d)
		jobs = append(jobs, func() error {
			sums, err := a.transactions.Summary(c.UserContext(), token, dir, since)
			if err != nil {
				return err
			}
			d.fill(statuses, sums)
			return nil
		})
	}
	add("Receivables", "receivable", abilityViewReceivables, receivableStatuses)
	add("Payables", "payable", abilityViewPayables, payableStatuses)
	d := overviewData{Tables: tables, CanBatches: canViewBatches(u.Abilities)}
	jobs = append(jobs, func() (err error) { d.Batches, err = a.recentBatchesOf(c, token); return err })
	d.Failures = a.failuresJob(c, token, &jobs)
	if err := runAll(jobs); err != nil {
		return err
	}
	return a.render(c, "overview", page{Title: "Overview", Nav: "overview", Data: d})
}

// fill makes one row per status, in the statuses' order (a status the
// service reports that is not listed goes last).
func (d *direction) fill(statuses []string, sums []transactions.StatusSum) {
	byStatus := map[string]map[string]int64{}
	counts := map[string]int{}
	all := map[string]int64{}
	for _, s := range sums {
		if byStatus[s.Status] == nil {
			byStatus[s.Status] = map[string]int64{}
		}
		byStatus[s.Status][s.Currency] += s.Amount
		counts[s.Status] += s.Count
		all[s.Currency] += s.Amount
		d.Total += s.Count
		if !slices.Contains(statuses, s.Status) {
			statuses = append(slices.Clip(statuses), s.Status)
		}
	}
	for _, s := range statuses {
		d.Rows = append(d.Rows, statusCount{Status: s, Count: counts[s], Amount: amounts(byStatus[s])})
	}
	d.Amount = amounts(all)
}

// amounts formats sums per currency, the currencies in alphabetical order.
func amounts(byCurrency map[string]int64) string {
	currencies := make([]string, 0, len(byCurrency))
	for cur := range byCurrency {
		currencies = append(currencies, cur)
	}
	sort.Strings(currencies)
	parts := make([]string, len(currencies))
	for i, cur := range currencies {
		parts[i] = money(byCurrency[cur], cur)
	}
	return strings.Join(parts, " · ")
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
