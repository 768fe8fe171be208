package batchsvc_test

import (
	"net/http"
	"testing"
	"time"

	batchsvc "github.com/paylane/paylane/batch-svc"
	"github.com/paylane/paylane/batch-svc/internal/testenv"
	contactstest "github.com/paylane/paylane/contacts-svc/client/clienttest"
	"github.com/paylane/paylane/libs/authz"
)

// TestOneTenantsStuckBatchesLeaveAWorkerForOthers: tenant A's two batches
// (its in-flight limit) meet a downstream that answers 503 to A for the
// whole retry bound. With the replica's default two workers, tenant B's
// batch, submitted after A's, completes while A's are still running.
func TestOneTenantsStuckBatchesLeaveAWorkerForOthers(t *testing.T) {
	t.Parallel()
	svc := testenv.Start(t, func(c *batchsvc.Config) {
		c.Workers, c.RetryFor = batchsvc.DefaultWorkers, time.Hour
	})
	svc.Contacts.FailWhen(func(c contactstest.Call) int {
		if c.Tenant == tenantA {
			return http.StatusServiceUnavailable
		}
		return 0
	})
	a := svc.Token(t, tenantA, authz.Limits{}, "api:create-contact", "api:view-any-contact")
	b := svc.Token(t, tenantB, authz.Limits{}, "api:create-contact", "api:view-any-contact")
	var ids []string
	for range 2 {
		var env struct{ Data testenv.Header }
		r := svc.Do(t, http.MethodPost, "/api/v1/contacts/batch", a, `{"items":`+items(3)+`}`)
		if r.Status != http.StatusAccepted {
			t.Fatalf("A submit = %d %s", r.Status, r.Body)
		}
		r.JSON(t, &env)
		ids = append(ids, env.Data.ID)
	}
	// A's first batch is being retried before B submits.
	svc.WaitFor(t, a, ids[0], func(h testenv.Header) bool { return h.Status == "processing" })
	h := waitFinal(t, svc, b, smallItems(3))
	if h.Status != "completed" || h.SucceededItems != 3 {
		t.Errorf("B's batch = %+v", h)
	}
	for _, id := range ids {
		var env struct{ Data testenv.Header }
		svc.Do(t, http.MethodGet, "/api/v1/batches/"+id, a, nil).JSON(t, &env)
		if env.Data.Final() {
			t.Errorf("A's batch %s ended (%s) while its downstream was failing", id, env.Data.Status)
		}
	}
}
