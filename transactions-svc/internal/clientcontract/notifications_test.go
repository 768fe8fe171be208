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
