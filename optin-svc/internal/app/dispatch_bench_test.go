package app_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/optin-svc/internal/app"
	"github.com/paylane/paylane/optin-svc/internal/optin"
	"github.com/paylane/paylane/optin-svc/internal/store"
	"github.com/paylane/paylane/optin-svc/migrations"
)

// BenchmarkDispatch drains a queue of n messages of one tenant through the
// sink (the provider that answers at once): the dispatcher's own cost a
// message, its transactions included, when the messages come one at a
// time (n = 1), a few at a time, and many at once (a receivables batch's).
//
//	go test -run '^$' -bench Dispatch -benchtime 10x github.com/paylane/paylane/optin-svc/internal/app
func BenchmarkDispatch(b *testing.B) {
	for _, n := range []int{1, 4, 500} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchmarkDispatch(b, n) })
	}
}

func benchmarkDispatch(b *testing.B, n int) {
	const tenant = "tn_bench"
	pg := testkit.PG(b)
	st := store.New(pg.Pool(b, pg.Database(b, "optin", migrations.Sets()...)))
	a := app.New(app.Deps{Store: st, Sending: app.Sending{DefaultFrom: "+15005550006", MaxAttempts: 3}})
	ctx := context.Background()
	round := 0
	for b.Loop() {
		b.StopTimer()
		round++
		err := st.Write(ctx, idempotency.Tx{}, tenant, func(tx *store.Tx) error {
			now := time.Now().UTC().Truncate(time.Microsecond)
			msgs, queue := make([]optin.Message, n), make([]store.Due, n)
			for i := range n {
				msgs[i] = optin.Message{ID: ids.New(), NotificationID: ids.New(), Kind: "notification",
					To: fmt.Sprintf("+1415%03d%04d", round%1000, (round/1000+i)%10000), Body: "Your invoice is due.", Status: optin.MessageQueued,
					Provider: "sink", CreatedAt: now, UpdatedAt: now}
				queue[i] = store.Due{MessageID: msgs[i].ID, At: now}
			}
			if _, err := tx.InsertMessages(ctx, msgs); err != nil {
				return err
			}
			if err := tx.EnqueueMessages(ctx, queue); err != nil {
				return err
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		sent := 0
		for {
			k, err := a.DispatchDue(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if k == 0 {
				break
			}
			sent += k
		}
		if sent != n {
			b.Fatalf("dispatched %d, want %d", sent, n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "µs/message")
}
