package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"

	"github.com/paylane/paylane/bench/internal/baseline"
	"github.com/paylane/paylane/bench/internal/report"
)

// Sizes and targets of benchmark 3.
const (
	batchContacts          = 10_000
	batchReceivables       = 5_000
	batchContactsTarget    = 600 * time.Millisecond
	batchReceivablesTarget = 1500 * time.Millisecond
	// batchMaxRounds caps the runs of each batch (-rounds): the tenant may
	// submit 10 batches a minute.
	batchMaxRounds = 5
	// batchPoll is how often the header is read while a batch runs; it
	// bounds the error of the measured time.
	batchPoll = 10 * time.Millisecond
	// batchProfileSeconds is how long a -profile of a batch runs from its
	// submit (the batch's own time, then idle).
	batchProfileSeconds = 4
	// batchSettle bounds the wait for an idle stack before each batch.
	batchSettle = 30 * time.Second
	// batchTimeout gives up on a batch that does not finish.
	batchTimeout = 2 * time.Minute
)

// batchRows is benchmark 3: a batch of 10,000 new contacts and one of
// 5,000 receivables with new contacts, each timed from the submit until
// GET /api/v1/batches/{id} answers a final state, -rounds times (at most
// batchMaxRounds); each row reports the median run. The contacts batch is
// set against one pgx CopyFrom of the same number of rows into the bench
// database.
func (b *bench) batchRows(ctx context.Context, _ *baseline.Server) ([]report.Row, error) {
	copied, err := baseline.Copy(ctx, b.env.SuperuserDSN(baseline.Database), b.env.DemoTenantID, batchContacts,
		func(int) string { return b.phones.take() })
	if err != nil {
		return nil, fmt.Errorf("batch baseline: %w", err)
	}
	b.logf("batch baseline: COPY of %d rows in %s", batchContacts, report.Seconds(copied))
	contacts := report.Row{
		Benchmark: fmt.Sprintf("3 batch: %d contacts submit → completed", batchContacts),
		Baseline:  fmt.Sprintf("COPY of %d rows: %s", batchContacts, report.Seconds(copied)),
		Ratio:     "-", Target: "≤ " + report.Seconds(batchContactsTarget),
	}
	receivables := report.Row{
		Benchmark: fmt.Sprintf("3 batch: %d receivables with new contacts", batchReceivables),
		Baseline:  "-", Ratio: "-", Target: "≤ " + report.Seconds(batchReceivablesTarget),
	}
	if _, ok := b.env.Services["batch"]; !ok {
		contacts.Figure, contacts.Verdict = "n/a (batch-svc is not in the devstack)", report.NA
		receivables.Figure, receivables.Verdict = contacts.Figure, report.NA
		return []report.Row{contacts, receivables}, nil
	}
	// The contacts runs first, then the receivables runs: a receivables
	// batch sets off an SMS per receivable (optin-svc), work that goes on
	// for tens of seconds after the batch ends and that a later batch
	// would share the CPU with (settle waits at most batchSettle for it).
	var cs, rs []batchRun
	rounds := min(b.cfg.rounds, batchMaxRounds)
	for round := range rounds {
		c, err := b.timeBatch(ctx, "contacts", b.contactItems(fmt.Sprintf("%d", time.Now().UnixNano())), round == 0)
		if err != nil {
			return nil, err
		}
		cs = append(cs, c)
	}
	for round := range rounds {
		r, err := b.timeBatch(ctx, "receivables", b.receivableItems(fmt.Sprintf("%d", time.Now().UnixNano())), round == 0)
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
	}
	contacts.Figure, contacts.Verdict = batchFigure(cs, batchContactsTarget)
	receivables.Figure, receivables.Verdict = batchFigure(rs, batchReceivablesTarget)
	return []report.Row{contacts, receivables}, nil
}

// batchRun is one timed batch: its final header, the time from submit to
// the final state, and the CPU time per item over it (all, and Postgres).
type batchRun struct {
	h          batchHeader
	took       time.Duration
	cpu, pgCPU float64 // ms per item
}

// batchFigure is the figure and verdict of the median of runs; only a
// completed median within target passes.
func batchFigure(runs []batchRun, target time.Duration) (string, report.Verdict) {
	sorted := slices.SortedFunc(slices.Values(runs), func(a, b batchRun) int { return cmp.Compare(a.took, b.took) })
	m := sorted[len(sorted)/2]
	fig := fmt.Sprintf("%s: %s (%d of %d succeeded), CPU %.3f ms/item (Postgres %.3f)", m.h.Status,
		report.Seconds(m.took), m.h.SucceededItems, m.h.TotalItems, m.cpu, m.pgCPU)
	if len(sorted) > 1 {
		fig = fmt.Sprintf("median of %d runs (%s–%s): %s", len(sorted), report.Seconds(sorted[0].took),
			report.Seconds(sorted[len(sorted)-1].took), fig)
	}
	if m.h.Status != "completed" || m.took > target {
		return fig, report.Fail
	}
	return fig, report.Pass
}

// contactItems are batchContacts new contacts, each with its own external
// id and phone number.
func (b *bench) contactItems(run string) []map[string]any {
	items := make([]map[string]any, batchContacts)
	for i := range items {
		items[i] = map[string]any{
			"external_id": fmt.Sprintf("bench-%s-c%d", run, i), "first_name": "Batch", "last_name": fmt.Sprintf("Row %d", i),
			"phone": b.phones.take(),
		}
	}
	return items
}

// receivableItems are batchReceivables receivables, each naming a new
// contact by an external id it is created from.
func (b *bench) receivableItems(run string) []map[string]any {
	items := make([]map[string]any, batchReceivables)
	for i := range items {
		items[i] = map[string]any{
			"external_id": fmt.Sprintf("bench-%s-r%d", run, i), "amount": 1000 + i, "description": "Batch invoice",
			"contact": map[string]any{
				"external_id": fmt.Sprintf("bench-%s-rc%d", run, i), "first_name": "Batch", "last_name": fmt.Sprintf("Payer %d", i),
				"phone": b.phones.take(),
			},
		}
	}
	return items
}

// timeBatch submits items to /api/v1/<kind>/batch and measures the time
// until the batch reached a final state and the CPU time per item (this
// process with the devstack, and Postgres) over that time. With -profile
// and profile set, a CPU profile of the devstack process covers the batch
// (devstack-batch-<kind>.pprof, from the submit on for
// batchProfileSeconds).
func (b *bench) timeBatch(ctx context.Context, kind string, items []map[string]any, profile bool) (batchRun, error) {
	path := "/api/v1/" + kind + "/batch"
	body, err := json.Marshal(map[string]any{"items": items})
	if err != nil {
		return batchRun{}, err
	}
	if err := b.settle(ctx); err != nil {
		return batchRun{}, err
	}
	profiled := done(nil)
	if profile {
		profiled = b.profile(ctx, b.env.Internal["gateway"], "devstack-batch-"+kind, batchProfileSeconds)
	}
	cpu0, pg0, _, err := b.cpu()
	if err != nil {
		return batchRun{}, err
	}
	start := time.Now()
	id, err := b.submitBatch(ctx, path, body)
	if err != nil {
		return batchRun{}, err
	}
	h, err := b.awaitBatch(ctx, id)
	if err != nil {
		return batchRun{}, err
	}
	took := time.Since(start)
	cpu1, pg1, _, err := b.cpu()
	if err != nil {
		return batchRun{}, err
	}
	if err := <-profiled; err != nil {
		return batchRun{}, err
	}
	perItem := func(d time.Duration) float64 { return ms(d) / float64(max(h.TotalItems, 1)) }
	r := batchRun{h: h, took: took, cpu: perItem(cpu1 - cpu0), pgCPU: perItem(pg1 - pg0)}
	b.logf("batch %s (%d items, %.1f MB): %s in %s, %d succeeded, %d failed, CPU %.3f ms/item (Postgres %.3f)", path,
		h.TotalItems, float64(len(body))/1e6, h.Status, took.Round(time.Millisecond), h.SucceededItems, h.FailedItems,
		r.cpu, r.pgCPU)
	return r, nil
}

// settle waits until the devstack and Postgres are idle (under a tenth of
// a core over a quarter second), for at most batchSettle: the work a batch
// sets off after it ends (a receivables batch's SMS through optin-svc, the
// events' consumers) would otherwise run into the next batch's time and
// CPU figures. It logs how long that took and the CPU used meanwhile (the
// previous batch's tail).
func (b *bench) settle(ctx context.Context) error {
	const window = 250 * time.Millisecond
	var used, pgUsed time.Duration
	start := time.Now()
	first, pgFirst, _, err := b.cpu()
	if err != nil {
		return err
	}
	for deadline := start.Add(batchSettle); time.Now().Before(deadline); {
		before, pgBefore, _, err := b.cpu()
		if err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(window):
		}
		after, pgAfter, _, err := b.cpu()
		if err != nil {
			return err
		}
		if used, pgUsed = after-before, pgAfter-pgBefore; used < window/10 {
			b.logf("batch: the stack was idle after %s (it used %s of CPU meanwhile, Postgres %s)",
				time.Since(start).Round(time.Millisecond), (after - first).Round(time.Millisecond),
				(pgAfter - pgFirst).Round(time.Millisecond))
			return nil
		}
	}
	b.logf("batch: the stack was still busy after %s (%s of CPU in the last %s, Postgres %s); timing the next batch anyway",
		batchSettle, used.Round(time.Millisecond), window, pgUsed.Round(time.Millisecond))
	if err := <-b.profile(ctx, b.env.Internal["gateway"], "devstack-batch-busy", 5); err != nil {
		return err
	}
	return nil
}

// done returns a channel that yields err once.
func done(err error) <-chan error {
	ch := make(chan error, 1)
	ch <- err
	return ch
}

// batchHeader is what the benchmark reads of a batch.
type batchHeader struct {
	ID             string `json:"id"`
	Status         string `json:"status"`
	TotalItems     int    `json:"total_items"`
	SucceededItems int    `json:"succeeded_items"`
	FailedItems    int    `json:"failed_items"`
}

// submitBatch posts a batch and returns its id (202 expected).
func (b *bench) submitBatch(ctx context.Context, path string, body []byte) (string, error) {
	h, status, err := b.batchCall(ctx, http.MethodPost, path, body)
	if err != nil {
		return "", err
	}
	if status != http.StatusAccepted || h.ID == "" {
		return "", fmt.Errorf("POST %s: status %d, want 202 with a batch", path, status)
	}
	return h.ID, nil
}

// awaitBatch polls the batch until it leaves queued and processing.
func (b *bench) awaitBatch(ctx context.Context, id string) (batchHeader, error) {
	deadline := time.Now().Add(batchTimeout)
	for time.Now().Before(deadline) {
		h, status, err := b.batchCall(ctx, http.MethodGet, "/api/v1/batches/"+id, nil)
		if err != nil {
			return h, err
		}
		if status != http.StatusOK {
			return h, fmt.Errorf("GET /api/v1/batches/%s: status %d", id, status)
		}
		if h.Status != "queued" && h.Status != "processing" {
			return h, nil
		}
		select {
		case <-ctx.Done():
			return h, ctx.Err()
		case <-time.After(batchPoll):
		}
	}
	return batchHeader{}, errors.New("batch " + id + " did not finish within " + batchTimeout.String())
}

// batchCall sends one batch request and decodes {data: header}.
func (b *bench) batchCall(ctx context.Context, method, path string, body []byte) (batchHeader, int, error) {
	resp, err := b.do(ctx, method, path, body, "")
	if err != nil {
		return batchHeader{}, 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return batchHeader{}, resp.StatusCode, fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	var out struct {
		Data batchHeader `json:"data"`
	}
	if resp.StatusCode < 300 {
		if err := json.Unmarshal(data, &out); err != nil {
			return batchHeader{}, resp.StatusCode, fmt.Errorf("%s %s: %w", method, path, err)
		}
	} else {
		b.logf("%s %s: %d %s", method, path, resp.StatusCode, data)
	}
	return out.Data, resp.StatusCode, nil
}
