package store_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
	"github.com/paylane/paylane/transactions-svc/migrations"
)

// shownMessage is the latest message of item it as its tenant sees it
// ("status updated_at"), or "" when there is none.
func shownMessage(t *testing.T, s *store.Store, tenant string, it txn.Item) string {
	t.Helper()
	var got txn.Item
	err := s.Read(context.Background(), tenant, func(tx *store.Tx) error {
		var err error
		got, err = tx.Item(context.Background(), it.Direction, it.ID)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.LatestMessage == nil {
		return ""
	}
	return got.LatestMessage.Status + " " + got.LatestMessage.UpdatedAt.Format(time.RFC3339)
}

// messageStates are the message states of item it's notifications as its
// tenant sees them ("status updated_at" each).
func messageStates(t *testing.T, s *store.Store, tenant string, it txn.Item) []string {
	t.Helper()
	var out []string
	err := s.Read(context.Background(), tenant, func(tx *store.Tx) error {
		list, err := tx.ItemMessages(context.Background(), it.ID)
		for _, m := range list {
			st := m.Status
			if m.UpdatedAt != nil {
				st += " " + m.UpdatedAt.Format(time.RFC3339)
			}
			out = append(out, st)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func record(t *testing.T, s *store.Store, tenant string, latest []store.TransactionMessage, states []store.MessageState) {
	t.Helper()
	ctx := context.Background()
	err := s.Write(ctx, idempotency.Tx{}, tenant, func(tx *store.Tx) error { return tx.RecordMessages(ctx, latest, states) })
	if err != nil {
		t.Fatal(err)
	}
}

// itemWithNotification stores a receivable in tenant with one notification
// (id notificationID) for it.
func itemWithNotification(t *testing.T, s *store.Store, tenant, notificationID string) txn.Item {
	t.Helper()
	ctx := context.Background()
	it := newItem(txn.Receivable, ts("2026-11-22T00:00:00Z"))
	err := s.Write(ctx, idempotency.Tx{}, tenant, func(tx *store.Tx) error {
		if err := tx.InsertItem(ctx, it); err != nil {
			return err
		}
		return tx.SaveNotifications(ctx, []store.Notification{{ID: notificationID, ItemID: it.ID, Direction: txn.Receivable,
			Kind: "payment_link", To: "+14155550123", Body: "Pay"}})
	})
	if err != nil {
		t.Fatal(err)
	}
	return it
}

// TestRecordMessagesKeepsTheNewest: one report at a time, a message
// replaces the one shown when it was created later, or when it is the same
// message updated as late or later; anything else changes nothing.
func TestRecordMessagesKeepsTheNewest(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	it := itemWithNotification(t, s, "T1", "N1")
	t0 := ts("2026-11-22T00:01:00Z")
	steps := []struct {
		name string
		m    store.LatestMessage
		want string
	}{
		{"first", store.LatestMessage{ID: "M1", Status: "queued", CreatedAt: t0, UpdatedAt: t0}, "queued 2026-11-22T00:01:00Z"},
		{"later update", store.LatestMessage{ID: "M1", Status: "delivered", CreatedAt: t0, UpdatedAt: t0.Add(2 * time.Second)}, "delivered 2026-11-22T00:01:02Z"},
		{"older update", store.LatestMessage{ID: "M1", Status: "sent", CreatedAt: t0, UpdatedAt: t0.Add(time.Second)}, "delivered 2026-11-22T00:01:02Z"},
		{"older message", store.LatestMessage{ID: "M0", Status: "failed", CreatedAt: t0.Add(-time.Hour), UpdatedAt: t0.Add(time.Hour)}, "delivered 2026-11-22T00:01:02Z"},
		{"equal update", store.LatestMessage{ID: "M1", Status: "failed", CreatedAt: t0, UpdatedAt: t0.Add(2 * time.Second)}, "failed 2026-11-22T00:01:02Z"},
		{"other message created together", store.LatestMessage{ID: "M9", Status: "queued", CreatedAt: t0, UpdatedAt: t0.Add(time.Hour)}, "failed 2026-11-22T00:01:02Z"},
		{"newer message", store.LatestMessage{ID: "M2", Status: "queued", CreatedAt: t0.Add(time.Hour), UpdatedAt: t0.Add(time.Hour)}, "queued 2026-11-22T01:01:00Z"},
	}
	for _, st := range steps {
		record(t, s, "T1", []store.TransactionMessage{{TransactionID: it.TransactionID, Message: st.m}},
			[]store.MessageState{{NotificationID: "N1", Status: st.m.Status, UpdatedAt: st.m.UpdatedAt}})
		if got := shownMessage(t, s, "T1", it); got != st.want {
			t.Errorf("%s: shown %q, want %q", st.name, got, st.want)
		}
	}
	// The notification takes any report as late as or later than its own.
	if got, want := messageStates(t, s, "T1", it), []string{"queued 2026-11-22T01:01:00Z"}; !cmp.Equal(got, want) {
		t.Errorf("notification %v, want %v", got, want)
	}
}

// TestRecordMessagesAppliesRepeatsInOrder: several entries for one
// transaction or notification in one call end where applying them one
// call at a time ends.
func TestRecordMessagesAppliesRepeatsInOrder(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	t0 := ts("2026-11-22T00:01:00Z")
	sent := t0.Add(time.Second)
	msg := func(id, status string, created, updated time.Duration) store.LatestMessage {
		return store.LatestMessage{ID: id, Status: status, Channel: "sms", SentAt: &sent, CreatedAt: t0.Add(created), UpdatedAt: t0.Add(updated)}
	}
	// For transaction a: M1's latest update; for b: M3, the first of two
	// messages created at the same time (M4's updates are not M3's).
	forA := []store.LatestMessage{msg("M1", "queued", 0, 0), msg("M1", "delivered", 0, 2*time.Second),
		msg("M1", "sent", 0, time.Second), msg("M0", "queued", -time.Hour, time.Hour)}
	forB := []store.LatestMessage{msg("M3", "queued", 0, 0), msg("M4", "queued", 0, 0), msg("M4", "delivered", 0, time.Second)}
	states := func(n string) []store.MessageState {
		return []store.MessageState{{NotificationID: n, Status: "sent", SentAt: &sent, UpdatedAt: t0.Add(time.Second)},
			{NotificationID: n, Status: "delivered", SentAt: &sent, UpdatedAt: t0.Add(2 * time.Second)},
			{NotificationID: n, Status: "queued", UpdatedAt: t0}}
	}
	var together, oneByOne [2]txn.Item
	var latest []store.TransactionMessage
	for i := range 2 {
		together[i] = itemWithNotification(t, s, "T1", "NT"+string(rune('0'+i)))
		oneByOne[i] = itemWithNotification(t, s, "T1", "NO"+string(rune('0'+i)))
	}
	// Interleaved, as a batch holds them.
	for i := range max(len(forA), len(forB)) {
		if i < len(forA) {
			latest = append(latest, store.TransactionMessage{TransactionID: together[0].TransactionID, Message: forA[i]})
		}
		if i < len(forB) {
			latest = append(latest, store.TransactionMessage{TransactionID: together[1].TransactionID, Message: forB[i]})
		}
	}
	record(t, s, "T1", latest, append(states("NT0"), states("NT1")...))
	for i, list := range [][]store.LatestMessage{forA, forB} {
		for _, m := range list {
			record(t, s, "T1", []store.TransactionMessage{{TransactionID: oneByOne[i].TransactionID, Message: m}}, nil)
		}
		for _, st := range states("NO" + string(rune('0'+i))) {
			record(t, s, "T1", nil, []store.MessageState{st})
		}
	}
	wants := []string{"delivered 2026-11-22T00:01:02Z", "queued 2026-11-22T00:01:00Z"}
	for i := range 2 {
		got, one := shownMessage(t, s, "T1", together[i]), shownMessage(t, s, "T1", oneByOne[i])
		if got != wants[i] || one != wants[i] {
			t.Errorf("transaction %d: shown %q together, %q one by one, want %q", i, got, one, wants[i])
		}
		got2, one2 := messageStates(t, s, "T1", together[i]), messageStates(t, s, "T1", oneByOne[i])
		if want := []string{"delivered 2026-11-22T00:01:02Z"}; !cmp.Equal(got2, want) || !cmp.Equal(one2, want) {
			t.Errorf("notification %d: %v together, %v one by one, want %v", i, got2, one2, want)
		}
	}
}

// TestRecordMessagesStaysInItsTenant: reports naming another tenant's
// transaction and notification change nothing there.
func TestRecordMessagesStaysInItsTenant(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	it := itemWithNotification(t, s, "T1", "N1")
	t0 := ts("2026-11-22T00:01:00Z")
	record(t, s, "T2", []store.TransactionMessage{{TransactionID: it.TransactionID,
		Message: store.LatestMessage{ID: "M1", Status: "queued", CreatedAt: t0, UpdatedAt: t0}}},
		[]store.MessageState{{NotificationID: "N1", Status: "queued", UpdatedAt: t0}})
	if got := shownMessage(t, s, "T1", it); got != "" {
		t.Errorf("T1's transaction shows %q after T2's report", got)
	}
	if got := messageStates(t, s, "T1", it); !cmp.Equal(got, []string{""}) {
		t.Errorf("T1's notification %v after T2's report", got)
	}
}

// TestRecordMessagesReadsByPrimaryKey: each statement of RecordMessages
// finds its rows by primary key (transactions_pkey, notifications_pkey)
// in the generic plan pgx's statement cache ends up with as in a custom
// one, never by reading the table.
func TestRecordMessagesReadsByPrimaryKey(t *testing.T) {
	t.Parallel()
	pg := testkit.PG(t)
	dsn := pg.Database(t, "transactions", migrations.Sets()...)
	owner := pg.Pool(t, pg.OwnerDSN(t, dsn))
	ctx := context.Background()
	// The owner is under row-level security too: fill each tenant's rows in
	// its own scope.
	for tenant := range 5 {
		testkit.Fill(t, owner, "T"+strconv.Itoa(tenant), []string{
			`INSERT INTO transactions (id, tenant_id, direction, contact_id, status, recipient_phone, created_at, updated_at)
				SELECT 't' || i, 'T' || (i % 5), 'receivable', 'c' || i, 'pending', '+14155550123', now(), now()
				FROM generate_series(1, 20000) i WHERE 'T' || (i % 5) = $1`,
			`INSERT INTO notifications (tenant_id, id, item_id, direction, kind, to_phone, body)
				SELECT 'T' || (i % 5), 'n' || i, 'r' || i, 'receivable', 'payment_link', '+14155550123', 'Pay'
				FROM generate_series(1, 20000) i WHERE 'T' || (i % 5) = $1`,
		})
	}
	if _, err := owner.Exec(ctx, "VACUUM ANALYZE transactions, notifications"); err != nil {
		t.Fatal(err)
	}
	pool := pg.Pool(t, dsn)
	now := time.Now()
	ids3 := []string{ids.New(), ids.New(), ids.New()}
	times := []time.Time{now, now, now}
	for _, st := range []struct {
		name, sql, table, index string
		args                    []any
	}{
		{"latest messages", store.SetLatestMessagesSQL, "transactions", "transactions_pkey",
			[]any{ids3, []string{`{}`, `{}`, `{}`}, ids3, times, times}},
		{"message states", store.SetMessageStatesSQL, "notifications", "notifications_pkey",
			[]any{ids3, []string{"sent", "sent", "sent"}, times, times}},
	} {
		for _, mode := range []string{"force_generic_plan", "force_custom_plan"} {
			indexed := 0
			testkit.ExplainPrepared(t, pool, "T1", mode, "", st.sql, st.args...).Walk(func(n testkit.PlanNode) {
				switch {
				case n.Index == st.index:
					indexed++
				case n.Relation == st.table && n.NodeType != "ModifyTable":
					t.Errorf("%s, %s: %s read by %s %s", st.name, mode, st.table, n.NodeType, n.Index)
				}
			})
			if indexed != 1 {
				t.Errorf("%s, %s: %d scans of %s, want 1", st.name, mode, indexed, st.index)
			}
		}
	}
}
