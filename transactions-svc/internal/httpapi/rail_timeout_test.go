package httpapi_test

import (
	"context"
	"testing"
	"time"

	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// stallInProcessing leaves an item as a process that stopped between the
// two transactions of a charge or disbursement leaves it: processing, with
// the rail_timeout wake-up the first transaction queued and no answer.
func (f fixture) stallInProcessing(t *testing.T, d txn.Direction, id string) {
	t.Helper()
	ctx := context.Background()
	err := f.env.Store.Write(ctx, idempotency.Tx{}, f.tenant, func(tx *store.Tx) error {
		it, err := tx.LockItem(ctx, d, id)
		if err != nil {
			return err
		}
		it.Status, it.UpdatedAt = txn.Processing, f.env.Clock.Now()
		if d == txn.Payable {
			it.Destination = &txn.Destination{Type: txn.BankAccount, Last4: "6789"}
		}
		if err := tx.UpdateItem(ctx, it); err != nil {
			return err
		}
		return tx.Schedule(ctx, it, store.KindRailTimeout, it.UpdatedAt.Add(5*time.Minute))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// railTimeouts counts the queued rail_timeout wake-ups of the service.
func (f fixture) railTimeouts(t *testing.T) int {
	t.Helper()
	var n int
	if err := f.env.Pool.QueryRow(context.Background(), "SELECT count(*) FROM due_work WHERE kind = 'rail_timeout'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestStalledRailFails: an item left processing with no answer from the
// rail fails after the rail timeout (failure_reason processor_timeout), so
// the actions of a failed item apply again; answers the rail gave leave no
// wake-up behind.
func TestStalledRailFails(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rec := f.create(t, "receivables", "")
	pay := f.create(t, "payables", "")
	f.stallInProcessing(t, txn.Receivable, rec.ID)
	f.stallInProcessing(t, txn.Payable, pay.ID)
	transitionError(t, f.action(t, "receivables", rec.ID, "mark-paid", "{}"), "processing", "paid")

	f.env.Clock.Advance(4 * time.Minute)
	f.env.RunDue(t)
	if got := f.show(t, "receivables", rec.ID); got.Status != "processing" {
		t.Fatalf("before the rail timeout: %s", got.Status)
	}
	before := len(f.env.Events(t, f.tenant))
	f.env.Clock.Advance(time.Minute)
	f.env.RunDue(t)
	for path, id := range map[string]string{"receivables": rec.ID, "payables": pay.ID} {
		got := f.show(t, path, id)
		if got.Status != "failed" || got.FailureReason == nil || *got.FailureReason != "processor_timeout" {
			t.Fatalf("%s after the rail timeout: %+v", path, got)
		}
	}
	want := map[string]bool{"receivable.payment_failed": true, "receivable.updated": true,
		"payable.disbursement_failed": true, "payable.updated": true}
	evs := f.env.Events(t, f.tenant)[before:]
	for _, e := range evs {
		delete(want, e.Type)
	}
	if len(want) != 0 || len(evs) != 4 {
		t.Errorf("events after the rail timeout lack %v (got %d)", want, len(evs))
	}
	var o one
	f.action(t, "receivables", rec.ID, "retry-payment", "").JSON(t, &o)
	if o.Data.Status != "paid" {
		t.Fatalf("retry-payment after the timeout: %+v", o.Data)
	}
	f.action(t, "payables", pay.ID, "retry-disbursement", "").JSON(t, &o)
	if o.Data.Status != "disbursed" {
		t.Fatalf("retry-disbursement after the timeout: %+v", o.Data)
	}
	if n := f.railTimeouts(t); n != 0 {
		t.Fatalf("%d rail_timeout wake-ups left after the rail answered", n)
	}

	// The answered paths (a payout, a processor error and its retry) leave
	// none either, and the later wake-ups change nothing.
	p := f.create(t, "payables", "")
	f.selectDestination(t, p, "1111")
	f.action(t, "payables", p.ID, "retry-disbursement", "")
	if n := f.railTimeouts(t); n != 0 {
		t.Fatalf("%d rail_timeout wake-ups left after a payout", n)
	}
	f.env.Clock.Advance(time.Hour)
	f.env.RunDue(t)
	if got := f.show(t, "payables", p.ID); got.Status != "disbursed" {
		t.Fatalf("a later run moved the payout to %s", got.Status)
	}
}
