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

// BenchmarkDispatch500 drains a queue of 500 messages of one tenant
// through the sink (the provider that answers at once), as the messages of
// a receivables batch are: the dispatcher's own cost a message, its
// transactions included.
//
//	go test -run '^$' -bench Dispatch500 -benchtime 10x github.com/paylane/paylane/optin-svc/internal/app
func BenchmarkDispatch500(b *testing.B) {
	const tenant, n = "tn_bench", 500
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
			for i := range n {
				m := optin.Message{ID: ids.New(), NotificationID: ids.New(), Kind: "notification",
					To: fmt.Sprintf("+1415%03d%04d", round%1000, i), Body: "Your invoice is due.", Status: optin.MessageQueued,
					Provider: "sink", CreatedAt: now, UpdatedAt: now}
				if _, err := tx.InsertMessage(ctx, m); err != nil {
					return err
				}
				if err := tx.Enqueue(ctx, m.ID, now); err != nil {
					return err
				}
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
