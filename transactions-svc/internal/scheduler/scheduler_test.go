package scheduler_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/transactions-svc/internal/scheduler"
	"github.com/paylane/paylane/transactions-svc/internal/testenv"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// TestReplicasShareTheQueue runs three schedulers on one database, as three
// replicas would: every scheduled item is sent exactly once.
func TestReplicasShareTheQueue(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	tenants := []string{ids.New(), ids.New()}
	const perTenant = 15
	for _, tenant := range tenants {
		c := env.Contact(t, tenant, "c", "Ada", "+14155550123")
		for i := range perTenant {
			body := fmt.Sprintf(`{"contact_id":%q,"amount":%d,"send_at":"2026-11-22T02:00:00Z"}`, c.ID, 100+i)
			if r := env.Do(t, http.MethodPost, "/api/v1/receivables", env.Token(t, tenant), body); r.Status != http.StatusCreated {
				t.Fatalf("create: %d %s", r.Status, r.Body)
			}
		}
	}
	env.Clock.Advance(time.Hour)
	var wg sync.WaitGroup
	done := make([]int, 3)
	for i := range done {
		s := scheduler.New(env.Store, env.App, time.Second, nil)
		wg.Go(func() {
			for {
				n, err := s.RunOnce(context.Background())
				if err != nil {
					t.Error(err)
					return
				}
				if n == 0 {
					return
				}
				done[i] += n
			}
		})
	}
	wg.Wait()
	if total := done[0] + done[1] + done[2]; total != 2*perTenant {
		t.Fatalf("replicas completed %v rows, want %d in all", done, 2*perTenant)
	}
	for _, tenant := range tenants {
		sent := 0
		for _, e := range env.Events(t, tenant) {
			if e.Type == "notification.requested" {
				sent++
			}
		}
		if sent != perTenant {
			t.Errorf("tenant %s: %d notifications, want %d", tenant, sent, perTenant)
		}
	}
}
