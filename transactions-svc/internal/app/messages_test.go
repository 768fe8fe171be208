package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/tenancy"
	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/transactions-svc/internal/testenv"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// sms is a receivable's transaction and the notification of its payment
// link.
type sms struct{ tenant, transactionID, notificationID string }

// newReceivables creates n pending receivables of a new tenant, each with
// its notification.
func newReceivables(t testing.TB, env *testenv.Env, n int) []sms {
	t.Helper()
	tenant := ids.New()
	token := env.Token(t, tenant)
	contact := env.Contact(t, tenant, "c1", "Ada", "+14155550123")
	for range n {
		r := env.Do(t, http.MethodPost, "/api/v1/receivables", token, `{"contact_id":"`+contact.ID+`","amount":900}`)
		if r.Status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
	}
	var out []sms
	for _, n := range env.Notifications(t, tenant) {
		out = append(out, sms{tenant, n.Event.TransactionID, n.Event.NotificationID})
	}
	if len(out) != n {
		t.Fatalf("%d notifications for %d receivables", len(out), n)
	}
	return out
}

// shown is what s's tenant sees of it: the latest message of the
// transaction ("id status updated_at") and the message state of the
// notification ("status updated_at"), times as seconds after t0.
func shown(t *testing.T, env *testenv.Env, s sms) [2]string {
	t.Helper()
	ctx := context.Background()
	var latestID, latestStatus, noteStatus *string
	var latestAt, noteAt *time.Time
	err := tenancy.Read(ctx, env.Pool, s.tenant, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `SELECT t.latest_message->>'id', t.latest_message->>'status',
       (t.latest_message->>'updated_at')::timestamptz, n.message_status, n.message_updated_at
  FROM transactions t, notifications n WHERE t.id = $1 AND n.id = $2`, s.transactionID, s.notificationID).
			Scan(&latestID, &latestStatus, &latestAt, &noteStatus, &noteAt)
	})
	if err != nil {
		t.Fatal(err)
	}
	var out [2]string
	if latestID != nil {
		out[0] = fmt.Sprintf("%s %s %v", *latestID, *latestStatus, latestAt.Sub(t0))
	}
	if noteStatus != nil {
		out[1] = fmt.Sprintf("%s %v", *noteStatus, noteAt.Sub(t0))
	}
	return out
}

var t0 = testenv.Start()

// report is a message.* event about s: message id, status, and its
// created_at and updated_at as seconds after t0.
func report(t testing.TB, s sms, id, status string, created, updated int) events.Envelope {
	t.Helper()
	c, u := t0.Add(time.Duration(created)*time.Second), t0.Add(time.Duration(updated)*time.Second)
	e, err := events.New("message."+status, s.tenant, "", events.Message{ID: id, NotificationID: s.notificationID,
		TransactionID: s.transactionID, Channel: "sms", Status: status, SentAt: &c, CreatedAt: c, UpdatedAt: u})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func apply(t *testing.T, env *testenv.Env, batch ...events.Envelope) {
	t.Helper()
	if err := env.App.ApplyMessages(context.Background(), batch); err != nil {
		t.Fatal(err)
	}
}

// TestApplyMessagesKeepsTheNewestOfABatch: a batch holding several
// reports about one transaction, in any order, leaves the newest shown;
// older news, in the batch or later, changes nothing.
func TestApplyMessagesKeepsTheNewestOfABatch(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	s := newReceivables(t, env, 2)
	a, b := s[0], s[1]
	older := a // an older message of a's, sent for another notification
	older.notificationID = ids.New()
	apply(t, env,
		report(t, a, "M1", "sent", 0, 1),
		report(t, b, "M2", "queued", 0, 0),
		report(t, a, "M1", "delivered", 0, 3),
		report(t, a, "M1", "queued", 0, 0),
		report(t, b, "M2", "sent", 0, 2),
		report(t, older, "M0", "failed", -60, 10), // updated later, but created earlier
		report(t, a, "M1", "sent", 0, 2),
	)
	want := [][2]string{{"M1 delivered 3s", "delivered 3s"}, {"M2 sent 2s", "sent 2s"}}
	for i, s := range s {
		if diff := cmp.Diff(want[i], shown(t, env, s)); diff != "" {
			t.Errorf("receivable %d (-want +got):\n%s", i, diff)
		}
	}
	// Older than what is stored: nothing changes.
	apply(t, env, report(t, older, "M0", "delivered", -60, 20), report(t, a, "M1", "sent", 0, 2), report(t, b, "M2", "queued", 0, 1))
	for i, s := range s {
		if diff := cmp.Diff(want[i], shown(t, env, s)); diff != "" {
			t.Errorf("receivable %d after older news (-want +got):\n%s", i, diff)
		}
	}
	// A message created later replaces the one shown.
	apply(t, env, report(t, a, "M3", "queued", 60, 60))
	if diff := cmp.Diff([2]string{"M3 queued 1m0s", "queued 1m0s"}, shown(t, env, a)); diff != "" {
		t.Errorf("after a newer message (-want +got):\n%s", diff)
	}
}

// TestApplyMessagesSkipsRedeliveries: an event applied before, in an
// earlier batch or earlier in the same one, changes nothing, even where
// its news would win (a report as recent as the one shown wins).
func TestApplyMessagesSkipsRedeliveries(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	s := newReceivables(t, env, 2)
	sent := [2]events.Envelope{report(t, s[0], "M1", "sent", 0, 1), report(t, s[1], "M2", "sent", 0, 1)}
	apply(t, env, sent[0])
	apply(t, env, report(t, s[0], "M1", "delivered", 0, 1))
	apply(t, env, sent[0]) // redelivered in a later batch
	apply(t, env, sent[1], report(t, s[1], "M2", "delivered", 0, 1), sent[1])
	for i, s := range s {
		if diff := cmp.Diff([2]string{fmt.Sprintf("M%d delivered 1s", i+1), "delivered 1s"}, shown(t, env, s)); diff != "" {
			t.Errorf("receivable %d (-want +got):\n%s", i, diff)
		}
	}
}

// TestApplyMessagesKeepsTenantsApart: a batch of two tenants' events gives
// each tenant its own news, and an event naming another tenant's
// transaction or notification changes nothing there.
func TestApplyMessagesKeepsTenantsApart(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	a, b := newReceivables(t, env, 1)[0], newReceivables(t, env, 1)[0]
	intruder := b
	intruder.transactionID, intruder.notificationID = a.transactionID, a.notificationID // b's tenant, a's ids
	apply(t, env,
		report(t, a, "MA", "sent", 0, 1),
		report(t, b, "MB", "delivered", 0, 2),
		report(t, intruder, "MX", "failed", 60, 60),
	)
	if diff := cmp.Diff([2]string{"MA sent 1s", "sent 1s"}, shown(t, env, a)); diff != "" {
		t.Errorf("tenant a (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([2]string{"MB delivered 2s", "delivered 2s"}, shown(t, env, b)); diff != "" {
		t.Errorf("tenant b (-want +got):\n%s", diff)
	}
}

// TestApplyMessagesSkipsMalformedEvents: events that are not message.*
// events about a transaction, or that cannot be stored, are skipped and
// keep no other event of the batch from being applied.
func TestApplyMessagesSkipsMalformedEvents(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	s := newReceivables(t, env, 1)[0]
	// Each would show a newer message if it were applied.
	newer := func(change func(*events.Envelope, *events.Message)) events.Envelope {
		e := report(t, s, "MX", "failed", 60, 60)
		var m events.Message
		if err := e.Decode(&m); err != nil {
			t.Fatal(err)
		}
		change(&e, &m)
		e.Data, _ = json.Marshal(m)
		return e
	}
	undecodable := report(t, s, "MX", "failed", 60, 60)
	undecodable.Data = json.RawMessage(`"a string"`)
	apply(t, env,
		newer(func(e *events.Envelope, _ *events.Message) { e.Type = events.TypeReceivableCreated }),
		newer(func(e *events.Envelope, _ *events.Message) { e.TenantID = "" }),
		report(t, s, "M1", "sent", 0, 1),
		undecodable,
		newer(func(_ *events.Envelope, m *events.Message) { m.TransactionID = "" }),
		newer(func(_ *events.Envelope, m *events.Message) { m.TransactionID = "not-an-id" }),
		newer(func(_ *events.Envelope, m *events.Message) { m.Status = "fail\x00ed" }),
		newer(func(_ *events.Envelope, m *events.Message) { m.NotificationID = "N\x00" }),
		newer(func(e *events.Envelope, _ *events.Message) { e.ID = "E\x00" }),
		newer(func(e *events.Envelope, _ *events.Message) { e.TenantID = "tenant\x01" }),
		report(t, s, "M1", "delivered", 0, 2),
	)
	if diff := cmp.Diff([2]string{"M1 delivered 2s", "delivered 2s"}, shown(t, env, s)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestApplyMessagesEndsAsOneAtATime: random reports about a few
// receivables (few message ids and times, so that ties and messages
// created together are common), applied as one batch, leave what applying
// them one event at a time leaves.
func TestApplyMessagesEndsAsOneAtATime(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	together, oneByOne := newReceivables(t, env, 3), newReceivables(t, env, 3)
	r := rand.New(rand.NewPCG(23, 1))
	statuses := []string{"queued", "sent", "delivered", "failed"}
	for round := range 3 {
		var batch, single []events.Envelope
		for range 40 {
			// Each round's messages are new; in round 0 all were created
			// together.
			i, k := r.IntN(3), r.IntN(3)
			id, created := fmt.Sprintf("M%d-%d", round, k), k*round
			status, updated := statuses[r.IntN(4)], created+r.IntN(3)
			batch = append(batch, report(t, together[i], id, status, created, updated))
			single = append(single, report(t, oneByOne[i], id, status, created, updated))
		}
		apply(t, env, batch...)
		for _, e := range single {
			apply(t, env, e)
		}
		for i := range together {
			if diff := cmp.Diff(shown(t, env, oneByOne[i]), shown(t, env, together[i])); diff != "" {
				t.Errorf("round %d, receivable %d (-one at a time +batch):\n%s", round, i, diff)
			}
		}
	}
}

// BenchmarkApplyMessages applies what a receivables batch sets off, three
// events (queued, sent, delivered) per SMS, 500 events at a time as the
// consumer reads them (166 SMS, 498 events), and, for comparison, one
// event at a time.
func BenchmarkApplyMessages(b *testing.B) {
	env := testenv.New(b)
	s := newReceivables(b, env, 166)
	for _, size := range []int{500, 1} {
		b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) {
			var batch []events.Envelope
			sent := 0
			for i := 0; b.Loop(); i++ {
				if len(batch) == 0 {
					b.StopTimer()
					for j, it := range s {
						id, c := fmt.Sprintf("M%d-%d", i, j), 100+i
						for k, status := range []string{"queued", "sent", "delivered"} {
							batch = append(batch, report(b, it, id, status, c, c+k))
						}
					}
					b.StartTimer()
				}
				n := min(size, len(batch))
				if err := env.App.ApplyMessages(context.Background(), batch[:n]); err != nil {
					b.Fatal(err)
				}
				batch, sent = batch[n:], sent+n
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(sent), "µs/event")
		})
	}
}
