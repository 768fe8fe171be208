package clientcontract_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/transactions-svc/client"
	"github.com/paylane/paylane/transactions-svc/internal/testenv"
)

func TestNotification(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	c := client.New(env.Serve(t), nil)
	ctx := context.Background()
	tenant := ids.New()
	token := env.Token(t, tenant, client.NotificationAbilities...)
	contact := env.Contact(t, tenant, "c1", "Ada", "+14155550123")
	d, err := c.Prepare(ctx, env.Token(t, tenant), client.DraftInput{Direction: "receivable", ContactID: contact.ID, Amount: 2500}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Confirm(ctx, env.Token(t, tenant), d.TransactionID, nil, ""); err != nil {
		t.Fatal(err)
	}
	sent := env.Notifications(t, tenant)
	if len(sent) != 1 {
		t.Fatalf("notifications %+v", sent)
	}
	n, err := c.Notification(ctx, token, sent[0].Event.NotificationID)
	if err != nil || n.To != "+14155550123" || n.Kind != "payment_link" || !strings.Contains(n.Body, "/l/r/") {
		t.Fatalf("notification %+v, %v", n, err)
	}
	if _, err := c.Notification(ctx, env.Token(t, ids.New(), client.NotificationAbilities...), n.ID); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("notification from another tenant: %v", err)
	}
}

// The read by ids returns the tenant's notifications among the ids, each
// once, leaves out unknown ids and other tenants' notifications, and
// refuses an empty list, a malformed id or more than
// client.MaxNotificationsByID.
func TestNotificationsByID(t *testing.T) {
	t.Parallel()
	env, c, ctx, tenant, token, contact := newTenant(t, "c-by-id")
	for _, dir := range []string{"receivable", "payable"} {
		d, err := c.Prepare(ctx, token, client.DraftInput{Direction: dir, ContactID: contact.ID, Amount: 2500}, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Confirm(ctx, token, d.TransactionID, nil, ""); err != nil {
			t.Fatal(err)
		}
	}
	sent := env.Notifications(t, tenant)
	if len(sent) != 2 {
		t.Fatalf("notifications %+v", sent)
	}
	rec, pay := sent[0].Event.NotificationID, sent[1].Event.NotificationID
	view := env.Token(t, tenant, client.NotificationAbilities...)
	got, err := c.Notifications(ctx, view, []string{rec, ids.New(), pay, rec})
	kinds := map[string]string{}
	for _, n := range got {
		kinds[n.ID] = n.Kind + " " + n.To
	}
	if err != nil || len(got) != 2 || kinds[rec] != "payment_link +14155550123" || kinds[pay] != "payout_link +14155550123" {
		t.Fatalf("Notifications = %+v, %v; want both once", got, err)
	}
	if got, err := c.Notifications(ctx, env.Token(t, ids.New(), client.NotificationAbilities...), []string{rec}); err != nil || len(got) != 0 {
		t.Errorf("Notifications of another tenant = %+v, %v; want none", got, err)
	}
	var apiErr *client.Error
	if _, err := c.Notifications(ctx, env.Token(t, tenant, "api:view-receivable"), []string{rec, pay}); !errors.As(err, &apiErr) || apiErr.Status != 403 {
		t.Errorf("Notifications without api:view-payable err = %v, want 403", err)
	}
	tooMany := make([]string, client.MaxNotificationsByID+1)
	for i := range tooMany {
		tooMany[i] = rec
	}
	for name, list := range map[string][]string{"empty": nil, "malformed": {rec, "not-a-ulid"}, "nul": {rec[:25] + "\x00"}, "too many": tooMany} {
		if _, err := c.Notifications(ctx, view, list); !errors.As(err, &apiErr) || apiErr.Status != 422 || len(apiErr.Fields()["ids"]) == 0 {
			t.Errorf("Notifications(%s) err = %v, want a 422 naming ids", name, err)
		}
	}
}
