package app

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/paylane/paylane/libs/events"
)

// replaces is the store's rule (store.RecordMessages) for message m and
// the message shown (nil: none).
func replaces(shown *events.Message, m events.Message) bool {
	return shown == nil || dbTime(shown.CreatedAt).Before(dbTime(m.CreatedAt)) ||
		(shown.ID == m.ID && !dbTime(m.UpdatedAt).Before(dbTime(shown.UpdatedAt)))
}

// oneAtATime applies msgs to shown one at a time, as the consumer did
// before it read batches.
func oneAtATime(shown *events.Message, msgs []events.Message) *events.Message {
	for _, m := range msgs {
		if replaces(shown, m) {
			shown = &m
		}
	}
	return shown
}

// TestNewestOfTransactionEndsAsOneAtATime: for random messages of one
// transaction (few ids, few distinct times, so that equal times and
// messages created together are common) and any message shown before,
// applying the reduced entries with the store's rule ends with the same
// message shown as applying every message one at a time.
func TestNewestOfTransactionEndsAsOneAtATime(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(23, 29))
	t0 := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	at := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Second) }
	for run := range 20000 {
		// Each message keeps one created_at, except in a tenth of the runs.
		created := map[string]int{"A": r.IntN(3), "B": r.IntN(3), "C": r.IntN(3), "D": r.IntN(3)}
		inconsistent := run%10 == 0
		msgs := make([]events.Message, 1+r.IntN(6))
		for i := range msgs {
			id := string(rune('A' + r.IntN(3)))
			c := created[id]
			if inconsistent {
				c = r.IntN(3)
			}
			msgs[i] = events.Message{ID: id, Status: fmt.Sprint("event ", i), CreatedAt: at(c), UpdatedAt: at(c + r.IntN(3))}
		}
		var before *events.Message
		if r.IntN(4) > 0 {
			// A message of the batch keeps its created_at in what is shown
			// too; when the batch's own messages disagree, one it does not
			// hold is shown.
			id := string(rune('A' + r.IntN(4)))
			if inconsistent {
				id = "D"
			}
			before = &events.Message{ID: id, Status: "before", CreatedAt: at(created[id]), UpdatedAt: at(created[id] + r.IntN(3))}
		}
		want := oneAtATime(before, msgs)
		got := oneAtATime(before, newestOfTransaction(msgs))
		if got.Status != want.Status {
			t.Fatalf("run %d: shown before %+v, messages %+v: reduced to %+v shows %q, one at a time %q",
				run, before, msgs, newestOfTransaction(msgs), got.Status, want.Status)
		}
	}
}

// TestNewestPerNotificationEndsAsOneAtATime: the same for notifications,
// which take any report as late as or later than their own.
func TestNewestPerNotificationEndsAsOneAtATime(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(29, 23))
	t0 := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	type state struct {
		status  string
		updated time.Time
	}
	apply := func(shown *state, s state) *state {
		if shown == nil || !dbTime(s.updated).Before(dbTime(shown.updated)) {
			return &s
		}
		return shown
	}
	for run := range 5000 {
		msgs := make([]events.Message, 1+r.IntN(8))
		for i := range msgs {
			msgs[i] = events.Message{NotificationID: string(rune('N' + r.IntN(3))), Status: fmt.Sprint("event ", i),
				UpdatedAt: t0.Add(time.Duration(r.IntN(4)) * time.Second)}
			if r.IntN(5) == 0 {
				msgs[i].NotificationID = ""
			}
		}
		var before *state
		if r.IntN(3) > 0 {
			before = &state{"before", t0.Add(time.Duration(r.IntN(4)) * time.Second)}
		}
		reduced := newestPerNotification(msgs)
		for _, n := range []string{"N", "O", "P"} {
			want, got := before, before
			for _, m := range msgs {
				if m.NotificationID == n {
					want = apply(want, state{m.Status, m.UpdatedAt})
				}
			}
			count := 0
			for _, s := range reduced {
				if s.NotificationID == n {
					got = apply(got, state{s.Status, s.UpdatedAt})
					count++
				}
			}
			if count > 1 || got != want && (got == nil || want == nil || *got != *want) {
				t.Fatalf("run %d, notification %s: shown before %+v, messages %+v: reduced to %+v (%d entries) shows %+v, one at a time %+v",
					run, n, before, msgs, reduced, count, got, want)
			}
		}
	}
}

// TestDBTimeIsMicroseconds: the reductions compare times to the
// microsecond, as Postgres keeps them.
func TestDBTimeIsMicroseconds(t *testing.T) {
	t.Parallel()
	a := time.Date(2026, 11, 22, 0, 0, 0, 1_000_100, time.UTC)
	b := time.Date(2026, 11, 22, 0, 0, 0, 1_000_900, time.UTC)
	if !dbTime(a).Equal(dbTime(b)) || dbTime(a).Equal(dbTime(b.Add(time.Microsecond))) {
		t.Errorf("dbTime(%v) = %v, dbTime(%v) = %v", a, dbTime(a), b, dbTime(b))
	}
}
