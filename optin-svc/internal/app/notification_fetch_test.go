package app_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/optin-svc/internal/testenv"
	transactions "github.com/paylane/paylane/transactions-svc/client"
)

// idOnly is a notification.requested as transactions-svc writes it: ids
// and the kind, the number and text left at transactions-svc under id.
func idOnly(t *testing.T, env *testenv.Env, tenant, to, body string) (events.Envelope, string) {
	t.Helper()
	id := ids.New()
	if to != "" {
		env.Transactions.AddNotification(tenant, transactions.Notification{ID: id, Kind: events.KindPaymentLink, To: to, Body: body})
	}
	return testenv.NewEvent(t, events.TypeNotificationRequested, tenant, events.NotificationRequested{
		NotificationID: id, Kind: events.KindPaymentLink, TransactionID: ids.New(), Direction: "receivable",
		ContactID: ids.New(),
	}), id
}

// The message is recorded with the number and text read from
// transactions-svc by the event's notification id, within its tenant; an
// event of an earlier producer, which carries them, is used as it is.
func TestNotificationTextIsReadFromTransactions(t *testing.T) {
	t.Parallel()
	brokers := testkit.Broker(t)
	env := testenv.Start(t, testenv.Options{Brokers: brokers})
	tenant := env.NewTenant(t, testenv.TenantOptions{})
	other := env.NewTenant(t, testenv.TenantOptions{})
	evt, id := idOnly(t, env, tenant, "+14155550141", "Pay here: https://pay.example.test/l/r/9")
	// The same notification id in another tenant is not this one.
	env.Transactions.AddNotification(other, transactions.Notification{ID: id, Kind: events.KindPaymentLink,
		To: "+14155550999", Body: "another tenant's"})
	testenv.Publish(t, brokers, evt)
	m := env.WaitMessage(t, tenant, id)
	if m.Status != "delivered" || m.To != "+14155550141" || m.Body != "Pay here: https://pay.example.test/l/r/9" ||
		m.Kind != events.KindPaymentLink {
		t.Fatalf("message = %+v", m)
	}
	calls := env.Transactions.Calls()
	legacy := notification(t, tenant, "+14155550142")
	var n events.NotificationRequested
	_ = legacy.Decode(&n)
	testenv.Publish(t, brokers, legacy)
	if m := env.WaitMessage(t, tenant, n.NotificationID); m.Status != "delivered" || m.To != "+14155550142" ||
		m.Body != n.Body {
		t.Fatalf("message of an event with to and body = %+v", m)
	}
	if got := env.Transactions.Calls(); got != calls {
		t.Errorf("an event with to and body called transactions-svc %d times", got-calls)
	}
}

// While transactions-svc answers 503 the event stays unhandled and is
// retried; once it answers, the message is recorded and sent once.
func TestNotificationWaitsForTransactions(t *testing.T) {
	t.Parallel()
	brokers := testkit.Broker(t)
	env := testenv.Start(t, testenv.Options{Brokers: brokers})
	tenant := env.NewTenant(t, testenv.TenantOptions{})
	env.Transactions.SetDown(true)
	evt, id := idOnly(t, env, tenant, "+14155550143", "Pay here: https://pay.example.test/l/r/8")
	testenv.Publish(t, brokers, evt, evt)
	testenv.Eventually(t, "retries of the notification", func() bool { return env.Transactions.Calls() >= 3 })
	if got := env.Messages(t, tenant, ""); len(got) != 0 {
		t.Fatalf("messages while transactions-svc is down: %+v", got)
	}
	env.Transactions.SetDown(false)
	m := env.WaitMessage(t, tenant, id)
	if m.Status != "delivered" || m.To != "+14155550143" || m.Attempts != 1 {
		t.Fatalf("message = %+v", m)
	}
	// A later notification proves the duplicate was consumed before it.
	later, laterID := idOnly(t, env, tenant, "+14155550144", "Pay here: https://pay.example.test/l/r/7")
	testenv.Publish(t, brokers, later)
	env.WaitMessage(t, tenant, laterID)
	if got := env.Messages(t, tenant, "+14155550143"); len(got) != 1 {
		t.Fatalf("messages to the number = %d, want 1: %+v", len(got), got)
	}
	want := []string{events.TypeMessageQueued, events.TypeMessageSent, events.TypeMessageDelivered,
		events.TypeMessageQueued, events.TypeMessageSent, events.TypeMessageDelivered}
	if diff := cmp.Diff(want, messageTypes(env.Outbox(t, tenant))); diff != "" {
		t.Errorf("message events (-want +got):\n%s", diff)
	}
}

// A notification transactions-svc no longer has (404: expired or unknown)
// is recorded failed, notification_unavailable, and the consumer moves on.
func TestUnavailableNotificationFailsTheMessage(t *testing.T) {
	t.Parallel()
	brokers := testkit.Broker(t)
	env := testenv.Start(t, testenv.Options{Brokers: brokers})
	tenant := env.NewTenant(t, testenv.TenantOptions{})
	gone, goneID := idOnly(t, env, tenant, "", "")
	next, nextID := idOnly(t, env, tenant, "+14155550145", "Pay here: https://pay.example.test/l/r/6")
	testenv.Publish(t, brokers, gone, next)
	m := env.WaitMessage(t, tenant, goneID)
	if m.Status != "failed" || m.FailureReason == nil || *m.FailureReason != "notification_unavailable" ||
		m.To != "" || m.Body != "" || m.Attempts != 0 {
		t.Fatalf("message of an unavailable notification = %+v", m)
	}
	if m := env.WaitMessage(t, tenant, nextID); m.Status != "delivered" {
		t.Fatalf("next message = %+v", m)
	}
	want := []string{events.TypeMessageFailed, events.TypeMessageQueued, events.TypeMessageSent, events.TypeMessageDelivered}
	if diff := cmp.Diff(want, messageTypes(env.Outbox(t, tenant))); diff != "" {
		t.Errorf("message events (-want +got):\n%s", diff)
	}
}
