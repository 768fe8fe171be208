package worker_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paylane/paylane/batch-svc/internal/app"
	"github.com/paylane/paylane/batch-svc/internal/batch"
	"github.com/paylane/paylane/batch-svc/internal/store"
	"github.com/paylane/paylane/batch-svc/internal/worker"
	"github.com/paylane/paylane/batch-svc/migrations"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

const tenant = "01HZX3K5Q8V9W2Y4Z6A7B8C9DA"

// recordingWriter stands in for contacts-svc: it counts how often each row
// was sent (a row sent again is answered from the record there, never
// written twice); hook runs after a chunk's rows are taken and may fail
// the call.
type recordingWriter struct {
	mu     sync.Mutex
	sends  map[int]int
	firsts []int
	hook   func(req app.WriteRequest) error
	// inFlight counts the calls under way, most the highest it reached.
	inFlight, most int
}

func (w *recordingWriter) Write(_ context.Context, _ string, req app.WriteRequest) ([]app.RowResult, error) {
	w.mu.Lock()
	w.inFlight++
	w.most = max(w.most, w.inFlight)
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		w.inFlight--
		w.mu.Unlock()
	}()
	time.Sleep(time.Millisecond) // a call that takes time, as a real one does
	w.mu.Lock()
	out := make([]app.RowResult, len(req.Items))
	for i := range req.Items {
		row := req.FirstRowIndex + i
		w.sends[row]++
		out[i] = app.RowResult{RowIndex: row}
	}
	w.firsts = append(w.firsts, req.FirstRowIndex)
	hook := w.hook
	w.mu.Unlock()
	if hook != nil {
		if err := hook(req); err != nil {
			return nil, err
		}
	}
	return out, nil
}

type env struct {
	st  *store.Store
	app *app.App
	w   *recordingWriter
}

func setup(t *testing.T) env {
	t.Helper()
	pg := testkit.PG(t)
	pool := pg.Pool(t, pg.Database(t, "batch_svc", migrations.Sets()...))
	st := store.New(pool)
	w := &recordingWriter{sends: map[int]int{}}
	a := app.New(app.Deps{Store: st, Writers: map[batch.Type]app.Writer{batch.Contacts: w},
		Retry: app.Backoff{Base: time.Millisecond, Max: 10 * time.Millisecond}, Log: slog.New(slog.DiscardHandler)})
	return env{st: st, app: a, w: w}
}

func (e env) submit(t *testing.T, n int) string {
	t.Helper()
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`{"phone":"+1415555%04d"}`, i)
	}
	var items []json.RawMessage
	if err := json.Unmarshal([]byte("["+strings.Join(parts, ",")+"]"), &items); err != nil {
		t.Fatal(err)
	}
	h, err := e.app.Submit(context.Background(), app.Caller{TenantID: tenant}, batch.Contacts, batch.Envelope{Items: items})
	if err != nil {
		t.Fatal(err)
	}
	return h.ID
}

func (e env) header(t *testing.T, id string) batch.Header {
	t.Helper()
	var h batch.Header
	err := e.st.Read(context.Background(), tenant, func(tx *store.Tx) error {
		var err error
		h, err = tx.Batch(context.Background(), id)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestResumeAfterACrashWritesNoRowTwice(t *testing.T) {
	t.Parallel()
	e := setup(t)
	id := e.submit(t, 1500)
	ctx := context.Background()

	// Worker A writes chunk 0, then dies after chunk 1 reached the
	// downstream service and before it recorded chunk 1.
	now := time.Now()
	claimA, ok, err := e.st.ClaimNext(ctx, now, now.Add(time.Hour), "worker-a", nil)
	if err != nil || !ok || claimA.BatchID != id {
		t.Fatalf("claim = %+v, %v, %v", claimA, ok, err)
	}
	stopA, crash := context.WithCancel(ctx)
	e.w.hook = func(req app.WriteRequest) error {
		if req.FirstRowIndex == 500 {
			crash()
			return errors.New("connection reset")
		}
		return nil
	}
	lease := app.Lease{Claim: claimA, Until: func() time.Time { return time.Now().Add(time.Hour) }}
	if err := e.app.ProcessBatch(stopA, ctx, lease); !errors.Is(err, context.Canceled) {
		t.Fatalf("worker A: %v", err)
	}
	if h := e.header(t, id); h.Status != batch.Processing || h.ProcessedItems != 500 {
		t.Fatalf("after the crash: %+v", h)
	}
	e.w.hook = nil
	// A never renews again: its lease runs out.
	if _, err := e.st.Pool().Exec(ctx, `UPDATE batch_queue SET lease_until = now() - interval '1 second'`); err != nil {
		t.Fatal(err)
	}

	b := worker.New(worker.Options{App: e.app, Store: e.st, Workers: 1, Lease: time.Minute, PollInterval: time.Second})
	if !b.RunOnce(ctx) {
		t.Fatal("worker B found no batch to resume")
	}
	h := e.header(t, id)
	if h.Status != batch.Completed || h.ProcessedItems != 1500 || h.SucceededItems != 1500 || h.FailedItems != 0 {
		t.Errorf("after the resume: %+v", h)
	}
	// Chunk 0 was recorded before the crash and is not sent again; chunk
	// 1 reached contacts-svc once unrecorded and is sent again (answered
	// from contacts-svc's record); counters count each row once.
	for row := range 1500 {
		want := 1
		if row >= 500 && row < 1000 {
			want = 2
		}
		if n := e.w.sends[row]; n != want {
			t.Fatalf("row %d sent %d times, want %d", row, n, want)
		}
	}
	if want := []int{0, 500, 500, 1000}; fmt.Sprint(e.w.firsts) != fmt.Sprint(want) {
		t.Errorf("chunks sent = %v, want %v (chunk 0 not again)", e.w.firsts, want)
	}
	// A's stale lease records nothing.
	err = e.st.Write(ctx, idempotency.Tx{}, tenant, func(tx *store.Tx) error { return tx.HoldLease(ctx, claimA, time.Now()) })
	if !errors.Is(err, batch.ErrLeaseLost) {
		t.Errorf("worker A holding its lease: %v, want ErrLeaseLost", err)
	}
}

// TestChunksReachTheDownstreamOneAtATimeInRowOrder: batch-svc's own reads
// and records overlap with the downstream calls, but the chunks are sent
// one after another in row order, since a row's outcome may depend on
// earlier rows of the batch (a duplicate external id, a phone taken).
func TestChunksReachTheDownstreamOneAtATimeInRowOrder(t *testing.T) {
	t.Parallel()
	e := setup(t)
	id := e.submit(t, 2400)
	w := worker.New(worker.Options{App: e.app, Store: e.st, Workers: 1, Lease: time.Hour, PollInterval: time.Second})
	if !w.RunOnce(context.Background()) {
		t.Fatal("no batch claimed")
	}
	if h := e.header(t, id); h.Status != batch.Completed || h.ProcessedItems != 2400 || h.SucceededItems != 2400 {
		t.Errorf("after the run: %+v", h)
	}
	if want := []int{0, 500, 1000, 1500, 2000}; fmt.Sprint(e.w.firsts) != fmt.Sprint(want) {
		t.Errorf("chunks sent = %v, want %v", e.w.firsts, want)
	}
	if e.w.most != 1 {
		t.Errorf("%d chunks were in flight at once, want 1", e.w.most)
	}
}

// TestLeaseLostMidBatchCountsEveryRowOnce: a worker that loses its lease
// while a chunk is in flight downstream (and the previous chunk's record
// may still be under way) stops; the worker that resumes the batch sends
// again only chunks not recorded, and the counters count each row once.
func TestLeaseLostMidBatchCountsEveryRowOnce(t *testing.T) {
	t.Parallel()
	e := setup(t)
	id := e.submit(t, 2000)
	ctx := context.Background()
	now := time.Now()
	claimA, ok, err := e.st.ClaimNext(ctx, now, now.Add(time.Hour), "worker-a", nil)
	if err != nil || !ok || claimA.BatchID != id {
		t.Fatalf("claim = %+v, %v, %v", claimA, ok, err)
	}
	e.w.hook = func(req app.WriteRequest) error {
		if req.FirstRowIndex == 1000 { // another worker takes the batch over
			_, err := e.st.Pool().Exec(ctx, `UPDATE batch_queue SET lease_token = 'worker-x', lease_until = now() - interval '1 second'`)
			return err
		}
		return nil
	}
	lease := app.Lease{Claim: claimA, Until: func() time.Time { return time.Now().Add(time.Hour) }}
	if err := e.app.ProcessBatch(ctx, ctx, lease); !errors.Is(err, batch.ErrLeaseLost) {
		t.Fatalf("worker A: %v, want ErrLeaseLost", err)
	}
	e.w.hook = nil
	b := worker.New(worker.Options{App: e.app, Store: e.st, Workers: 1, Lease: time.Minute, PollInterval: time.Second})
	if !b.RunOnce(ctx) {
		t.Fatal("worker B found no batch to resume")
	}
	if h := e.header(t, id); h.Status != batch.Completed || h.ProcessedItems != 2000 || h.SucceededItems != 2000 {
		t.Errorf("after the resume: %+v", h)
	}
	for row := range 2000 {
		if n := e.w.sends[row]; n < 1 || n > 2 || (row < 500 && n != 1) {
			t.Fatalf("row %d sent %d times (chunk 0 once, the others once or twice)", row, n)
		}
	}
}

func TestStoppingWorkerReleasesBetweenChunks(t *testing.T) {
	t.Parallel()
	e := setup(t)
	id := e.submit(t, 1000)
	ctx, stop := context.WithCancel(context.Background())
	e.w.hook = func(app.WriteRequest) error { stop(); return nil } // shutdown while chunk 0 is in flight
	w := worker.New(worker.Options{App: e.app, Store: e.st, Workers: 1, Lease: time.Hour, PollInterval: time.Second})
	if !w.RunOnce(ctx) {
		t.Fatal("no batch claimed")
	}
	if h := e.header(t, id); h.Status != batch.Processing || h.ProcessedItems != 500 {
		t.Errorf("after the stop: %+v, want chunk 0 recorded", h)
	}
	var token *string
	var due time.Time
	err := e.st.Pool().QueryRow(context.Background(), `SELECT lease_token, lease_until FROM batch_queue WHERE batch_id = $1`, id).Scan(&token, &due)
	if err != nil || token != nil || due.After(time.Now()) {
		t.Fatalf("queue row: token %v due %v err %v, want released", token, due, err)
	}
	e.w.hook = nil
	again := worker.New(worker.Options{App: e.app, Store: e.st, Workers: 1, Lease: time.Hour, PollInterval: time.Second})
	if !again.RunOnce(context.Background()) {
		t.Fatal("released batch not claimed again")
	}
	if h := e.header(t, id); h.Status != batch.Completed || h.ProcessedItems != 1000 || h.SucceededItems != 1000 {
		t.Errorf("after the resume: %+v", h)
	}
}

// otherTenant is a second tenant beside tenant.
const otherTenant = "01HZX3K5Q8V9W2Y4Z6A7B8C9DB"

// submitOne submits a contacts batch of one item for the tenant and
// returns its id.
func (e env) submitOne(t *testing.T, tenantID string) string {
	t.Helper()
	items := []json.RawMessage{json.RawMessage(`{"phone":"+14155550100"}`)}
	h, err := e.app.Submit(context.Background(), app.Caller{TenantID: tenantID}, batch.Contacts, batch.Envelope{Items: items})
	if err != nil {
		t.Fatal(err)
	}
	return h.ID
}

// TestClaimPrefersTenantsWithFewerBatchesInProcess: a tenant already
// holding a worker comes after a tenant holding none, even with older
// batches; a skipped tenant's batches are not claimed at all.
func TestClaimPrefersTenantsWithFewerBatchesInProcess(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	submit := func(tenantID string) string { return e.submitOne(t, tenantID) }
	a1, a2 := submit(tenant), submit(tenant)
	b1 := submit(otherTenant)
	now := time.Now().Add(time.Second)
	claim := func(skip ...string) (store.Claim, bool) {
		c, ok, err := e.st.ClaimNext(ctx, now, now.Add(time.Hour), fmt.Sprintf("w-%d", time.Now().UnixNano()), skip)
		if err != nil {
			t.Fatal(err)
		}
		return c, ok
	}
	if c, _ := claim(); c.BatchID != a1 {
		t.Fatalf("first claim = %s, want the oldest batch %s", c.BatchID, a1)
	}
	if c, ok := claim(tenant); !ok || c.BatchID != b1 {
		t.Fatalf("claim skipping %s = %s, want %s", tenant, c.BatchID, b1)
	}
	if c, ok := claim(tenant); ok {
		t.Fatalf("claim skipping %s = %s, want none", tenant, c.BatchID)
	}
	if c, _ := claim(); c.BatchID != a2 {
		t.Fatalf("last claim = %s, want %s", c.BatchID, a2)
	}
}

func TestClaimOrdersByBatchesInProcess(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	submit := func(tenantID string) string { return e.submitOne(t, tenantID) }
	a1, _ := submit(tenant), submit(tenant)
	b1 := submit(otherTenant)
	now := time.Now().Add(time.Second)
	c, _, err := e.st.ClaimNext(ctx, now, now.Add(time.Hour), "w1", nil)
	if err != nil || c.BatchID != a1 {
		t.Fatalf("first claim = %s, %v; want %s", c.BatchID, err, a1)
	}
	// a2 is older than b1, but its tenant holds a worker already.
	c, _, err = e.st.ClaimNext(ctx, now, now.Add(time.Hour), "w2", nil)
	if err != nil || c.BatchID != b1 {
		t.Fatalf("second claim = %s, %v; want %s of the tenant holding none", c.BatchID, err, b1)
	}
}
