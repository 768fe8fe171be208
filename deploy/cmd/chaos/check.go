package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/paylane/paylane/libs/events"
)

// result is a scenario's outcome.
type result struct {
	ok2xx, lost, duplicates, stuck int
	details                        []string
	// failures are the scenario's own expectations that did not hold
	// (statuses during the fault); any fails the run.
	failures []string
	writes   []*write
}

func (r result) line(name string) string {
	return fmt.Sprintf("%s: %d writes answered 2xx, %d lost, %d duplicates, %d stuck", name, r.ok2xx, r.lost, r.duplicates, r.stuck)
}

func (r result) ok() bool {
	return r.lost == 0 && r.duplicates == 0 && r.stuck == 0 && len(r.failures) == 0
}

func (r *result) fail(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

func (r *result) note(format string, args ...any) {
	r.details = append(r.details, fmt.Sprintf(format, args...))
}

// noteSome notes at most 5 of the items, and how many there were.
func (r *result) noteSome(what string, items []string) {
	if len(items) == 0 {
		return
	}
	shown := items[:min(5, len(items))]
	r.note("%s: %d, e.g. %v", what, len(items), shown)
}

// onceTypes are the events a write causes exactly once: more than one
// event id for the same entity is a duplicate.
var onceTypes = []string{events.TypeContactCreated, events.TypeReceivableCreated, events.TypeReceivablePaid,
	events.TypePayableCreated, events.TypePayableDisbursed, events.TypeContactBatchCompleted}

// expected is the event a 2xx write must have put on the broker.
func expected(w *write) string {
	switch w.kind {
	case kindContactCreate:
		return events.TypeContactCreated
	case kindContactPatch:
		return events.TypeContactUpdated
	case kindReceivable:
		return events.TypeReceivableCreated
	case kindPay:
		return events.TypeReceivablePaid
	case kindPayable:
		return events.TypePayableCreated
	case kindPayout:
		return events.TypePayableDisbursed
	case kindBatch:
		return events.TypeContactBatchCompleted
	}
	return ""
}

// settle is how long the checks wait for events, deliveries and batches
// that are still under way.
const settle = 90 * time.Second

// deliverySettle is how long the checks wait for deliveries: a delivery
// claimed by a dispatcher that was killed is sent again once its claim
// expires, after webhook-svc's lease (2 min, dispatch.DefaultLease), so a
// shorter wait would count as lost what is only late.
const deliverySettle = 2*time.Minute + 30*time.Second

// check verifies the tenant's writes once the load and the fault are over.
func (t *tenant) check(ctx context.Context) (r result) {
	writes := t.allWrites()
	hung := 0
	for _, w := range writes {
		if w.ans.ok() {
			r.ok2xx++
		}
		if w.ans.hung {
			hung++
		}
	}
	r.note("answers: %s", answers(writes))
	defer func() {
		evs := t.e.events.of(t.id)
		delivered, byType := 0, map[string]int{}
		for _, ev := range evs {
			byType[ev.Type]++
			if t.rc.delivered(ev.ID) {
				delivered++
			}
		}
		types := make([]string, 0, len(byType))
		for typ, n := range byType {
			types = append(types, fmt.Sprintf("%s×%d", typ, n))
		}
		slices.Sort(types)
		r.note("events of the tenant on the broker: %d (%s), of which delivered to the receiver: %d",
			len(evs), strings.Join(types, ", "), delivered)
	}()
	if hung > 0 {
		r.stuck += hung
		r.note("requests without an answer within %s: %d", requestTimeout, hung)
	}
	t.e.waitReady(ctx)
	r.stuck += t.checkBatches(ctx, writes, &r)
	r.lost += t.checkReadable(ctx, writes, &r)
	lost, dups := t.checkEvents(ctx, writes, &r)
	r.lost += lost
	r.duplicates += dups
	r.lost += t.checkDeliveries(ctx, &r)
	lost, dups = t.checkReplays(ctx, writes, &r)
	r.lost += lost
	r.duplicates += dups
	return r
}

// waitReady waits until every supervised process is ready.
func (e *env) waitReady(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for _, name := range e.info.Processes.Names() {
		if err := e.info.Processes.WaitReady(ctx, name); err != nil {
			e.logf("%s not ready: %v", name, err)
		}
	}
}

// checkBatches waits up to a minute for every accepted batch to finish;
// one still queued or processing is stuck.
func (t *tenant) checkBatches(ctx context.Context, writes []*write, r *result) int {
	stuck := 0
	deadline := time.Now().Add(time.Minute)
	for _, w := range writes {
		if w.kind != kindBatch || !w.ans.ok() {
			continue
		}
		var h struct {
			Status                         string
			SucceededItems, ProcessedItems int
		}
		for {
			var head struct {
				Status         string `json:"status"`
				SucceededItems int    `json:"succeeded_items"`
				ProcessedItems int    `json:"processed_items"`
			}
			a := t.api(ctx, http.MethodGet, "/api/v1/batches/"+w.id, "", nil)
			if a.ok() && a.data(&head) == nil {
				h.Status, h.SucceededItems, h.ProcessedItems = head.Status, head.SucceededItems, head.ProcessedItems
			}
			if (h.Status != "" && h.Status != "queued" && h.Status != "processing") || time.Now().After(deadline) {
				break
			}
			time.Sleep(time.Second)
		}
		r.note("batch %s: %s, %d of %d rows succeeded", w.id, h.Status, h.SucceededItems, h.ProcessedItems)
		if h.Status == "queued" || h.Status == "processing" || h.Status == "" {
			stuck++
			t.stuck = append(t.stuck, w.id) // counted once: as stuck, not its event as lost
		}
	}
	return stuck
}

// checkReadable reads back the entity of every 2xx write.
func (t *tenant) checkReadable(ctx context.Context, writes []*write, r *result) int {
	var lost []string
	for _, w := range writes {
		if !w.ans.ok() {
			continue
		}
		path, want := "", ""
		switch w.kind {
		case kindContactCreate, kindContactPatch:
			path = "/api/v1/contacts/" + w.id
		case kindReceivable:
			path = "/api/v1/receivables/" + w.id
		case kindPay:
			path, want = "/api/v1/receivables/"+w.id, "paid"
		case kindPayable:
			path = "/api/v1/payables/" + w.id
		case kindPayout:
			path, want = "/api/v1/payables/"+w.id, "disbursed"
		default:
			continue
		}
		var a answer
		for try := 0; try < 5; try++ {
			if a = t.api(ctx, http.MethodGet, path, "", nil); a.status == http.StatusOK || a.status == http.StatusNotFound {
				break
			}
			time.Sleep(time.Second)
		}
		var it struct {
			Status string `json:"status"`
		}
		_ = a.data(&it)
		if a.status != http.StatusOK || (want != "" && it.Status != want) {
			lost = append(lost, fmt.Sprintf("%s %s → %d %s", w.kind, w.id, a.status, it.Status))
		}
	}
	r.noteSome("2xx writes not readable", lost)
	return len(lost)
}

// checkEvents waits until the broker holds the event of every 2xx write
// (a contact.updated per 2xx patch of the contact), and counts entities
// with more than one event id for an event that happens once.
func (t *tenant) checkEvents(ctx context.Context, writes []*write, r *result) (lost, dups int) {
	want := map[[2]string]int{}
	for _, w := range writes {
		if w.ans.ok() && expected(w) != "" && !slices.Contains(t.stuck, w.id) {
			want[[2]string{expected(w), w.id}]++
		}
	}
	var missing []string
	deadline := time.Now().Add(settle)
	for {
		got := map[[2]string]map[string]bool{}
		for _, ev := range t.e.events.of(t.id) {
			k := [2]string{ev.Type, ev.DataID}
			if got[k] == nil {
				got[k] = map[string]bool{}
			}
			got[k][ev.ID] = true
		}
		missing = missing[:0]
		for k, n := range want {
			if len(got[k]) < n {
				missing = append(missing, k[0]+" "+k[1])
			}
		}
		if len(missing) == 0 || time.Now().After(deadline) || ctx.Err() != nil {
			var dupList []string
			for k, idsOf := range got {
				if slices.Contains(onceTypes, k[0]) && len(idsOf) > 1 {
					dupList = append(dupList, fmt.Sprintf("%s %s ×%d ids", k[0], k[1], len(idsOf)))
				}
			}
			r.noteSome("events of 2xx writes missing on the broker", missing)
			r.noteSome("entities with an event repeated under another id", dupList)
			return len(missing), len(dupList)
		}
		time.Sleep(time.Second)
	}
}

// checkDeliveries waits until every subscribed event of the tenant on the
// broker has been delivered to the receiver (answered 2xx) at least once.
func (t *tenant) checkDeliveries(ctx context.Context, r *result) int {
	var missing []string
	deadline := time.Now().Add(deliverySettle)
	for {
		missing = missing[:0]
		for _, ev := range t.e.events.of(t.id) {
			if slices.Contains(t.events, ev.Type) && !t.rc.delivered(ev.ID) {
				missing = append(missing, ev.Type+" "+ev.ID)
			}
		}
		if len(missing) == 0 || time.Now().After(deadline) || ctx.Err() != nil {
			break
		}
		time.Sleep(time.Second)
	}
	r.noteSome("subscribed events not delivered", missing)
	if n := t.rc.mismatched(); n > 0 {
		r.note("deliveries whose body id differs from webhook-id: %d", n)
	}
	return len(missing)
}

// checkReplays sends every 2xx write with an Idempotency-Key again: the
// answer must be the stored one (same status, same entity).
func (t *tenant) checkReplays(ctx context.Context, writes []*write, r *result) (lost, dups int) {
	var bad, other []string
	for _, w := range writes {
		if !w.ans.ok() || w.key == "" {
			continue
		}
		var a answer
		for try := 0; try < 3; try++ { // a broken connection is no answer, not another one
			if a = t.api(ctx, w.method, w.path, w.key, w.body); a.status != 0 {
				break
			}
			time.Sleep(time.Second)
		}
		switch {
		case a.status == 0:
			bad = append(bad, fmt.Sprintf("%s %s: no answer (%v)", w.kind, w.key, a.err))
		case a.status != w.ans.status:
			bad = append(bad, fmt.Sprintf("%s %s: %d, first %d", w.kind, w.key, a.status, w.ans.status))
		case a.dataID() != w.id:
			other = append(other, fmt.Sprintf("%s %s: id %s, first %s", w.kind, w.key, a.dataID(), w.id))
		case w.kind != kindBatch && !bytes.Equal(a.body, w.ans.body):
			bad = append(bad, fmt.Sprintf("%s %s: another body", w.kind, w.key))
		}
	}
	r.noteSome("replayed keys not answering their stored response", bad)
	r.noteSome("replayed keys answering another entity", other)
	return len(bad), len(other)
}
