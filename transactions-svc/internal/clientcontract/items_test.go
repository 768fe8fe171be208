package clientcontract_test

import (
	"errors"
	"testing"
	"time"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/transactions-svc/client"
)

func TestListItemAndAct(t *testing.T) {
	t.Parallel()
	env, c, ctx, tenant, token, contact := newTenant(t, "c1")
	var created []string
	for _, amount := range []int64{100, 250} {
		d, err := c.Prepare(ctx, token, client.DraftInput{Direction: "receivable", ContactID: contact.ID, Amount: amount}, "")
		if err != nil {
			t.Fatal(err)
		}
		created = append(created, *d.ReceivableID)
		env.Clock.Advance(time.Second) // the second is the newer
	}
	if _, err := c.Confirm(ctx, token, mustItem(t, c, token, created[1]).TransactionID, nil, ""); err != nil {
		t.Fatal(err)
	}

	page, err := c.List(ctx, token, "receivable", client.ListOptions{Status: "pending", PerPage: 10})
	if err != nil || page.Total != 1 || len(page.Items) != 1 || page.Items[0].ID != created[1] || page.Items[0].Amount != 250 {
		t.Fatalf("pending list %+v, %v", page, err)
	}
	page, err = c.List(ctx, token, "receivable", client.ListOptions{ContactID: contact.ID, PerPage: 1, Page: 2})
	if err != nil || page.Total != 2 || page.LastPage != 2 || page.Page != 2 || len(page.Items) != 1 || page.Items[0].ID != created[0] {
		t.Fatalf("second page %+v, %v (newest first)", page, err)
	}
	if _, err := c.List(ctx, token, "receivable", client.ListOptions{Status: "lost"}); client.StatusOf(err) != 422 {
		t.Fatalf("unknown status: %v", err)
	}
	if _, err := c.List(ctx, env.Token(t, tenant, "api:view-receivable"), "receivable", client.ListOptions{}); client.StatusOf(err) != 403 {
		t.Fatalf("list without view-any: %v", err)
	}
	if _, err := c.Item(ctx, env.Token(t, ids.New()), "receivable", created[0]); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("another tenant's receivable: %v", err)
	}

	// A repeated Idempotency-Key answers the first result; the cancel emits
	// receivable.cancelled as the API's own route does.
	it, err := c.Act(ctx, token, "receivable", created[1], client.ActionCancel, "cancel-1")
	if err != nil || it.Status != "cancelled" {
		t.Fatalf("cancel = %+v, %v", it, err)
	}
	if again, err := c.Act(ctx, token, "receivable", created[1], client.ActionCancel, "cancel-1"); err != nil || again.Status != "cancelled" {
		t.Fatalf("replayed cancel = %+v, %v", again, err)
	}
	if _, err := c.Act(ctx, token, "receivable", created[1], client.ActionCancel, "cancel-2"); client.StatusOf(err) != 422 && client.StatusOf(err) != 409 {
		t.Fatalf("second cancel: %v", err)
	}
	cancelled := 0
	for _, e := range env.Events(t, tenant) {
		if e.Type == "receivable.cancelled" {
			cancelled++
		}
	}
	if cancelled != 1 {
		t.Fatalf("%d receivable.cancelled events, want 1", cancelled)
	}
	if _, err := c.Act(ctx, env.Token(t, tenant, "api:view-receivable"), "receivable", created[0], client.ActionCancel, ""); client.StatusOf(err) != 403 {
		t.Fatalf("cancel without delete-receivable: %v", err)
	}
}

func mustItem(t *testing.T, c *client.Client, token, id string) *client.Item {
	t.Helper()
	it, err := c.Item(t.Context(), token, "receivable", id)
	if err != nil {
		t.Fatal(err)
	}
	return it
}

func TestActivity(t *testing.T) {
	t.Parallel()
	env, c, ctx, tenant, token, contact := newTenant(t, "c1")
	d, err := c.Prepare(ctx, token, client.DraftInput{Direction: "receivable", ContactID: contact.ID, Amount: 900}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Confirm(ctx, token, d.TransactionID, nil, ""); err != nil {
		t.Fatal(err)
	}
	id := *d.ReceivableID
	sent := env.Notifications(t, tenant)
	if len(sent) != 1 {
		t.Fatalf("notifications %+v", sent)
	}
	at := env.Clock.Now()
	msg, err := events.New(events.TypeMessageSent, tenant, "", events.Message{ID: ids.New(), NotificationID: sent[0].Event.NotificationID,
		TransactionID: d.TransactionID, Channel: "sms", Status: "sent", SentAt: &at, CreatedAt: at, UpdatedAt: at})
	if err != nil {
		t.Fatal(err)
	}
	if err := env.App.ApplyMessages(ctx, []events.Envelope{msg}); err != nil {
		t.Fatal(err)
	}

	a, err := c.Activity(ctx, token, "receivable", id)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Transitions) != 2 || a.Transitions[0].From != "" || a.Transitions[0].To != "draft" ||
		a.Transitions[1].From != "draft" || a.Transitions[1].To != "pending" || a.Transitions[1].At.IsZero() {
		t.Errorf("transitions %+v", a.Transitions)
	}
	if len(a.Messages) != 1 || a.Messages[0].Kind != "payment_link" || a.Messages[0].Status != "sent" || a.Messages[0].SentAt == nil {
		t.Errorf("messages %+v", a.Messages)
	}
	if _, err := c.Activity(ctx, env.Token(t, tenant, "api:view-any-receivable"), "receivable", id); client.StatusOf(err) != 403 {
		t.Errorf("activity without view-receivable: %v", err)
	}
	if _, err := c.Activity(ctx, token, "payable", id); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("a receivable read as a payable: %v", err)
	}
	if _, err := c.Activity(ctx, token, "receivable", "not-an-id"); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("malformed id: %v", err)
	}
}

func TestSummary(t *testing.T) {
	t.Parallel()
	env, c, ctx, tenant, token, contact := newTenant(t, "c1")
	for _, in := range []client.DraftInput{
		{Direction: "receivable", ContactID: contact.ID, Amount: 100},
		{Direction: "receivable", ContactID: contact.ID, Amount: 250},
		{Direction: "receivable", ContactID: contact.ID, Amount: 700, Currency: "EUR"},
		{Direction: "payable", ContactID: contact.ID, Amount: 5000},
	} {
		if _, err := c.Prepare(ctx, token, in, ""); err != nil {
			t.Fatal(err)
		}
	}
	since := env.Clock.Now().Add(-30 * 24 * time.Hour)
	got, err := c.Summary(ctx, token, "receivable", since)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]client.StatusSum{
		"draft/USD": {Status: "draft", Currency: "USD", Count: 2, Amount: 350},
		"draft/EUR": {Status: "draft", Currency: "EUR", Count: 1, Amount: 700},
	}
	if len(got) != len(want) {
		t.Fatalf("summary %+v, want %+v", got, want)
	}
	for _, s := range got {
		if want[s.Status+"/"+s.Currency] != s {
			t.Errorf("row %+v, want %+v", s, want[s.Status+"/"+s.Currency])
		}
	}
	if later, err := c.Summary(ctx, token, "receivable", env.Clock.Now().Add(time.Hour)); err != nil || len(later) != 0 {
		t.Errorf("nothing created since an hour from now: %+v, %v", later, err)
	}
	if other, err := c.Summary(ctx, env.Token(t, ids.New()), "receivable", since); err != nil || len(other) != 0 {
		t.Errorf("another tenant's summary: %+v, %v", other, err)
	}
	if _, err := c.Summary(ctx, env.Token(t, tenant, "api:view-receivable"), "receivable", since); client.StatusOf(err) != 403 {
		t.Errorf("summary without view-any: %v", err)
	}
}
