package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/paylane/paylane/libs/ids"
)

// poisonRows is the size of each of the poisoned tenant's batches, and
// fairWithin how long another tenant's small batch may take meanwhile.
const (
	poisonRows = 5000
	fairWithin = 60 * time.Second
	poisonDone = 5 * time.Minute
)

// runPoison: tenant P fills its two in-flight batch slots with 5,000-row
// contacts batches in which every other row is poisoned (a NUL in the
// first name, a number that is not a phone, a repeated external id); then
// tenant F submits a 50-row batch. F's batch must complete within a minute
// while P's still run (workers are shared between tenants), and P's must
// end partial_failure with the NUL and phone rows (a third) as row errors,
// never stuck, failed or retried for an hour (the repeated external ids
// may be updates of one contact, as on_duplicate says).
func runPoison(ctx context.Context, e *env) (result, error) {
	var r result
	p, err := e.newTenant(ctx, "chaos poisoned batches")
	if err != nil {
		return r, err
	}
	defer p.rc.close()
	f, err := e.newTenant(ctx, "chaos fair batch")
	if err != nil {
		return r, err
	}
	defer f.rc.close()

	poisoned := make([]*write, 2)
	for b := range poisoned {
		items := make([]map[string]any, poisonRows)
		for i := range items {
			item := map[string]any{"external_id": "poison-" + ids.New(), "first_name": "Row", "phone": e.phone()}
			switch i % 6 {
			case 1:
				item["first_name"] = "Row\u0000"
			case 3:
				item["phone"] = "not a phone"
			case 5:
				item["external_id"] = "poison-repeated"
			}
			items[i] = item
		}
		poisoned[b] = p.record(ctx, kindBatch, http.MethodPost, "/api/v1/contacts/batch", map[string]any{"items": items}, "")
		if !poisoned[b].ans.ok() {
			return r, fmt.Errorf("submitting poisoned batch %d: %d %s", b, poisoned[b].ans.status, poisoned[b].ans.body)
		}
	}
	items := make([]map[string]any, 50)
	for i := range items {
		items[i] = map[string]any{"external_id": "fair-" + ids.New(), "first_name": "Fair", "phone": e.phone()}
	}
	submitted := time.Now()
	fair := f.record(ctx, kindBatch, http.MethodPost, "/api/v1/contacts/batch", map[string]any{"items": items}, "")
	if !fair.ans.ok() {
		return r, fmt.Errorf("submitting the fair batch: %d %s", fair.ans.status, fair.ans.body)
	}
	r.ok2xx = 3

	fairHead := waitBatch(ctx, f, fair.id, fairWithin)
	took := time.Since(submitted)
	pHeads := []batchHead{readBatch(ctx, p, poisoned[0].id), readBatch(ctx, p, poisoned[1].id)}
	running := 0
	for _, h := range pHeads {
		if h.Status == "queued" || h.Status == "processing" {
			running++
		}
	}
	r.note("tenant F's 50-row batch: %s, %d of %d rows succeeded, in %s; tenant P's batches still running then: %d",
		fairHead.Status, fairHead.SucceededItems, fairHead.ProcessedItems, took.Round(100*time.Millisecond), running)
	if fairHead.Status != "completed" || fairHead.SucceededItems != 50 {
		r.fail("tenant F's batch is %s (%d succeeded) after %s, want completed within %s while P's poisoned batches run",
			fairHead.Status, fairHead.SucceededItems, took.Round(time.Second), fairWithin)
		r.stuck++
	}

	for b, w := range poisoned {
		h := waitBatch(ctx, p, w.id, poisonDone)
		r.note("tenant P's batch %d: %s, %d processed, %d succeeded, %d failed", b, h.Status, h.ProcessedItems, h.SucceededItems, h.FailedItems)
		switch {
		case h.Status == "queued" || h.Status == "processing" || h.Status == "":
			r.stuck++
		case h.Status != "partial_failure" || h.ProcessedItems != poisonRows || h.FailedItems < poisonRows/3:
			r.fail("tenant P's batch %d is %s with %d processed and %d failed, want partial_failure with all %d processed and at least the NUL and phone rows (a third) failed",
				b, h.Status, h.ProcessedItems, h.FailedItems, poisonRows)
		}
	}
	return r, nil
}

// batchHead is what the scenario reads of a batch.
type batchHead struct {
	Status         string `json:"status"`
	ProcessedItems int    `json:"processed_items"`
	SucceededItems int    `json:"succeeded_items"`
	FailedItems    int    `json:"failed_items"`
}

func readBatch(ctx context.Context, t *tenant, id string) batchHead {
	var h batchHead
	if a := t.api(ctx, http.MethodGet, "/api/v1/batches/"+id, "", nil); a.ok() {
		_ = a.data(&h)
	}
	return h
}

// waitBatch reads the batch every 250 ms until it reaches a final state or
// within passes.
func waitBatch(ctx context.Context, t *tenant, id string, within time.Duration) batchHead {
	deadline := time.Now().Add(within)
	for {
		h := readBatch(ctx, t, id)
		if (h.Status != "" && h.Status != "queued" && h.Status != "processing") || time.Now().After(deadline) || ctx.Err() != nil {
			return h
		}
		time.Sleep(250 * time.Millisecond)
	}
}
