package peers_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/optin-svc/internal/peers"
	transactions "github.com/paylane/paylane/transactions-svc/client"
	"github.com/paylane/paylane/transactions-svc/client/clienttest"
)

// tenantToken hands out an unsigned token naming the tenant, which the
// transactions-svc fake reads as the caller's tenant.
type tenantToken struct{}

func (tenantToken) ServiceToken(_ context.Context, tenantID string, _ []string) (string, error) {
	claims := base64.RawURLEncoding.EncodeToString([]byte(`{"tenant_id":"` + tenantID + `"}`))
	return "e30." + claims + ".sig", nil
}

// More ids than one call may name are read in chunks of
// transactions.MaxNotificationsByID; the ones transactions-svc does not
// have are absent from the answer.
func TestNotificationsAreReadInChunks(t *testing.T) {
	t.Parallel()
	fake := clienttest.New(t)
	tenant := ids.New()
	list := make([]string, 2*transactions.MaxNotificationsByID+1)
	for i := range list {
		list[i] = ids.New()
		if i%2 == 0 {
			fake.AddNotification(tenant, transactions.Notification{ID: list[i], To: "+14155550100", Body: "text " + list[i]})
		}
	}
	p := peers.NewTransactions(transactions.New(fake.URL, nil), tenantToken{})
	got, err := p.Notifications(context.Background(), tenant, list)
	if err != nil {
		t.Fatalf("Notifications: %v", err)
	}
	if fake.Calls() != 3 {
		t.Errorf("calls = %d, want 3", fake.Calls())
	}
	for i, id := range list {
		n, ok := got[id]
		if ok != (i%2 == 0) || (ok && n.Body != "text "+id) {
			t.Fatalf("notification %d = %+v, %v", i, n, ok)
		}
	}
	if len(got) != transactions.MaxNotificationsByID+1 {
		t.Errorf("found %d, want %d", len(got), transactions.MaxNotificationsByID+1)
	}
}

// A 404 of the route (a transactions-svc without it) says nothing about the
// ids: it is an error, so the batch is retried rather than its messages
// recorded unavailable.
func TestNotificationsRouteMissingIsAnError(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/internal/v1/notifications") {
			t.Errorf("path %s", r.URL.Path)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":{"code":"resource_not_found","message":"Not found.","details":{}}}`))
	}))
	defer srv.Close()
	p := peers.NewTransactions(transactions.New(srv.URL, nil), tenantToken{})
	if got, err := p.Notifications(context.Background(), ids.New(), []string{ids.New()}); err == nil {
		t.Fatalf("Notifications = %+v, want an error", got)
	}
}
