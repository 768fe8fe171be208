package web

import (
	"context"
	"net/http"
	"net/url"
	"slices"

	"github.com/gofiber/fiber/v2"

	batches "github.com/paylane/paylane/batch-svc/client"
)

// Batches is what the dashboard asks batch-svc (batch-svc/client), with the
// signed-in user's internal token.
type Batches interface {
	Batches(ctx context.Context, token string, f batches.Filters) (*batches.BatchPage, error)
	Batch(ctx context.Context, token, id string) (*batches.Batch, error)
	Errors(ctx context.Context, token, id string, p batches.Page) (*batches.RowErrorPage, error)
}

// batchTypeAbility is the ability that reads batches of a type: the
// view-any ability of what it ingests (spec section 4, Batch ingest).
func batchTypeAbility(t string) string {
	switch t {
	case batches.TypeContacts:
		return abilityViewContacts
	case batches.TypeReceivables:
		return abilityViewReceivables
	case batches.TypePayables:
		return abilityViewPayables
	}
	return ""
}

// Page sizes of the batches pages.
const (
	batchesPerPage   = 15
	rowErrorsPerPage = 25
	recentBatches    = 5
)

// batchTypes returns the batch types the user's role may read.
func batchTypes(abilities []string) []string {
	var out []string
	for _, t := range batches.Types() {
		if slices.Contains(abilities, batchTypeAbility(t)) {
			out = append(out, t)
		}
	}
	return out
}

// canViewBatches reports whether the user's role reads batches of some
// type: the API has no batch ability of its own.
func canViewBatches(abilities []string) bool { return len(batchTypes(abilities)) > 0 }

// requireBatchReader lets through users who read batches of some type;
// others get 403. batch-svc checks the batch's own type again.
func (a *App) requireBatchReader(c *fiber.Ctx) error {
	if !canViewBatches(currentUser(c).Abilities) {
		return &pageError{status: http.StatusForbidden}
	}
	return c.Next()
}

// batchRoutes are the batches pages (list, detail with row errors).
func (a *App) batchRoutes(in fiber.Router) {
	in.Get("/batches", a.requireBatchReader, a.batchesPage)
	in.Get("/batches/:id", a.requireBatchReader, a.batchPage)
}

type batchesData struct {
	Type, Status string
	Types        []string
	Statuses     []string
	Batches      []batches.Batch
	Total        listTotal
	Filtered     bool
	Pager        pager
}

// batchesPage lists the tenant's batches newest first, filtered by type and
// status (GET /api/v1/batches: without a type, the types the user reads).
func (a *App) batchesPage(c *fiber.Ctx) error {
	u := currentUser(c)
	d := batchesData{Type: c.Query("type"), Status: c.Query("status"), Types: batchTypes(u.Abilities), Statuses: batches.Statuses()}
	pageNo, ok := pageNumber(c)
	if !ok {
		return &pageError{status: http.StatusNotFound}
	}
	bad := map[string]string{}
	if d.Type != "" && !slices.Contains(batches.Types(), d.Type) {
		bad["type"] = "Choose a type from the list."
	}
	if d.Status != "" && !slices.Contains(d.Statuses, d.Status) {
		bad["status"] = "Choose a status from the list."
	}
	q := url.Values{}
	if d.Type != "" {
		q.Set("type", d.Type)
	}
	if d.Status != "" {
		q.Set("status", d.Status)
	}
	d.Filtered = len(q) > 0
	p := page{Title: "Batches", Nav: "batches", Data: &d}
	if len(bad) > 0 {
		d.Type, d.Status = "", ""
		c.Status(http.StatusUnprocessableEntity)
		p.Errors = bad
		return a.render(c, "batches", p)
	}
	token, err := a.userToken(c)
	if err != nil {
		return err
	}
	list, err := a.batches.Batches(c.UserContext(), token, batches.Filters{Type: d.Type, Status: d.Status, Page: pageNo,
		PerPage: batchesPerPage})
	if fields, invalid := validation(err, nil); invalid {
		c.Status(http.StatusUnprocessableEntity)
		p.Errors = onForm(fields, "type", "status")
		return a.render(c, "batches", p)
	}
	if err != nil {
		return peerError(err)
	}
	if pageNo > 1 && len(list.Data) == 0 {
		return &pageError{status: http.StatusNotFound}
	}
	d.Batches, d.Total = list.Data, listTotal{list.Meta.Total, list.Meta.TotalIsEstimate}
	d.Pager = newPager(Base+"/batches", q, pageNo, list.Meta.LastPage)
	return a.render(c, "batches", p)
}

type batchData struct {
	Batch  *batches.Batch
	Errors []batches.RowError
	Total  listTotal
	Pager  pager
}

// batchPage shows a batch's header and its row errors page by page
// (GET /api/v1/batches/{id} and its errors).
func (a *App) batchPage(c *fiber.Ctx) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	pageNo, ok := pageNumber(c)
	if !ok {
		return &pageError{status: http.StatusNotFound}
	}
	token, err := a.userToken(c)
	if err != nil {
		return err
	}
	var d batchData
	var rows *batches.RowErrorPage
	err = runAll([]func() error{
		func() (err error) { d.Batch, err = a.batches.Batch(c.UserContext(), token, id); return err },
		func() (err error) {
			rows, err = a.batches.Errors(c.UserContext(), token, id, batches.Page{Page: pageNo, PerPage: rowErrorsPerPage})
			return err
		},
	})
	if err != nil {
		return peerError(err)
	}
	if pageNo > 1 && len(rows.Data) == 0 {
		return &pageError{status: http.StatusNotFound}
	}
	d.Errors, d.Total = rows.Data, listTotal{rows.Meta.Total, rows.Meta.TotalIsEstimate}
	d.Pager = newPager(Base+"/batches/"+id, url.Values{}, pageNo, rows.Meta.LastPage)
	return a.render(c, "batch", page{Title: "Batch " + id, Nav: "batches", Data: d})
}

// recentBatchesOf returns the user's last few batches for the overview, or
// nil when the role reads no batches.
func (a *App) recentBatchesOf(c *fiber.Ctx, token string) ([]batches.Batch, error) {
	if !canViewBatches(currentUser(c).Abilities) {
		return nil, nil
	}
	list, err := a.batches.Batches(c.UserContext(), token, batches.Filters{PerPage: recentBatches})
	if err != nil {
		return nil, err
	}
	return list.Data, nil
}
