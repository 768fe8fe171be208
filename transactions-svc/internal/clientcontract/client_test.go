package clientcontract_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/transactions-svc/client"
	"github.com/paylane/paylane/transactions-svc/internal/testenv"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func TestPrepareConfirmStatus(t *testing.T) {
	t.Parallel()
	env, c, ctx, tenant, token, contact := newTenant(t, "c1")

	d, err := c.Prepare(ctx, token, client.DraftInput{Direction: "payable", ContactID: contact.ID, Amount: 2500, Description: "Refund"}, "")
	if err != nil {
		t.Fatal(err)
	}
	want := client.Preview{RecipientName: "Ada Test", PhoneLast4: "0123", AmountFormatted: "$25.00",
		MessagePreview: "Hi Ada, a payout of $25.00 (Refund) is waiting for you. Choose where to receive it: [secure link]"}
	if diff := cmp.Diff(want, d.Preview); diff != "" || d.Status != "draft" || d.PayableID == nil || d.ExpiresAt != "2026-11-23T01:21:17.000Z" {
		t.Fatalf("draft %+v, preview (-want +got):\n%s", d, diff)
	}
	if types := testenv.Types(env.Events(t, tenant)); len(types) != 1 || types[0] != "payable.created" {
		t.Fatalf("prepare emitted %v; nothing may be sent", types)
	}
	s, err := c.Status(ctx, token, *d.PayableID)
	if err != nil || s.Status != "draft" || s.TransactionID != d.TransactionID || s.LatestMessage != nil {
		t.Fatalf("status %+v, %v", s, err)
	}
	done, err := c.Confirm(ctx, token, d.TransactionID, nil, "confirm-1")
	if err != nil || done.Status != "pending" {
		t.Fatalf("confirm %+v, %v", done, err)
	}
	if _, err := c.Confirm(ctx, token, d.TransactionID, nil, ""); client.StatusOf(err) != 422 || err.(*client.Error).Code != "invalid_transition" {
		t.Fatalf("second confirm: %v", err)
	}
	if _, err := c.Status(ctx, env.Token(t, ids.New()), d.TransactionID); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("status from another tenant: %v", err)
	}
	if _, err := c.Prepare(ctx, env.Token(t, tenant, "api:create-receivable"), client.DraftInput{Direction: "payable", ContactID: contact.ID, Amount: 1}, ""); client.StatusOf(err) != 403 {
		t.Fatalf("prepare without api:create-payable: %v", err)
	}
}

func TestScheduledConfirmAndDraftExpiry(t *testing.T) {
	t.Parallel()
	env, c, ctx, _, token, contact := newTenant(t, "c1")

	later, err := c.Prepare(ctx, token, client.DraftInput{Direction: "receivable", ContactID: contact.ID, Amount: 100}, "")
	if err != nil {
		t.Fatal(err)
	}
	sendAt := testenv.Start().Add(48 * time.Hour)
	done, err := c.Confirm(ctx, token, later.TransactionID, &sendAt, "")
	if err != nil || done.Status != "scheduled" {
		t.Fatalf("confirm with send_at: %+v, %v", done, err)
	}
	stale, err := c.Prepare(ctx, token, client.DraftInput{Direction: "receivable", ContactID: contact.ID, Amount: 100}, "")
	if err != nil {
		t.Fatal(err)
	}
	env.Clock.Advance(24 * time.Hour)
	env.RunDue(t)
	if s, _ := c.Status(ctx, token, stale.TransactionID); s.Status != "expired" {
		t.Fatalf("an unconfirmed draft after 24 h: %s", s.Status)
	}
	if s, _ := c.Status(ctx, token, later.TransactionID); s.Status != "scheduled" {
		t.Fatalf("the confirmed draft after 24 h: %s", s.Status)
	}
	if _, err := c.Confirm(ctx, token, stale.TransactionID, nil, ""); client.StatusOf(err) != 422 {
		t.Fatalf("confirming an expired draft: %v", err)
	}
}

// TestStatusShowsTheLatestMessage: optin-svc's message.* events reach the
// AI-gateway status of the transaction (contract section 11), by any of
// its references, and older news does not replace newer.
func TestStatusShowsTheLatestMessage(t *testing.T) {
	t.Parallel()
	env, c, ctx, tenant, token, contact := newTenant(t, "c1")
	d, err := c.Prepare(ctx, token, client.DraftInput{Direction: "receivable", ContactID: contact.ID, Amount: 700}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Confirm(ctx, token, d.TransactionID, nil, ""); err != nil {
		t.Fatal(err)
	}
	sent := testenv.Start().Add(time.Minute)
	message := func(typ, status string, updated time.Time) {
		t.Helper()
		m := events.Message{ID: "01JD3X0Q4Z8W2E5R7T9Y1V3MSG", TransactionID: d.TransactionID, Channel: "sms",
			Status: status, SentAt: &sent, CreatedAt: sent, UpdatedAt: updated}
		e, err := events.New(typ, tenant, "", m)
		if err != nil {
			t.Fatal(err)
		}
		if err := env.App.ApplyMessages(ctx, []events.Envelope{e}); err != nil {
			t.Fatal(err)
		}
	}
	message(events.TypeMessageDelivered, "delivered", sent.Add(time.Second))
	message(events.TypeMessageSent, "sent", sent) // older news, delivered later
	for _, ref := range []string{d.TransactionID, *d.ReceivableID} {
		s, err := c.Status(ctx, token, ref)
		if err != nil {
			t.Fatal(err)
		}
		want := &client.LatestMessage{Status: "delivered", Channel: "sms", SentAt: ptr("2026-11-22T01:22:17.000Z")}
		if diff := cmp.Diff(want, s.LatestMessage); diff != "" || s.Status != "pending" {
			t.Errorf("status of %s: %s; latest_message (-want +got):\n%s", ref, s.Status, diff)
		}
	}
}

func ptr[T any](v T) *T { return &v }
