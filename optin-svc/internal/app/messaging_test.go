package app_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	idclient "github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/optin-svc/internal/testenv"
)

func notification(t *testing.T, tenant, to string) events.Envelope {
	t.Helper()
	return testenv.NewEvent(t, events.TypeNotificationRequested, tenant, events.NotificationRequested{
		NotificationID: ids.New(), Kind: events.KindPaymentLink, TransactionID: ids.New(),
		ContactID: ids.New(), To: to, Body: "Pay here: https://pay.example.test/l/r/1",
	})
}

func messageTypes(envs []events.Envelope) []string {
	var out []string
	for _, env := range envs {
		if events.TopicFor(env.Type) == events.TopicMessages {
			out = append(out, env.Type)
		}
	}
	return out
}

func TestNotificationIsSentOnceThroughTheSink(t *testing.T) {
	t.Parallel()
	brokers := testkit.Broker(t)
	env := testenv.Start(t, testenv.Options{Brokers: brokers})
	tenant := env.NewTenant(t, testenv.TenantOptions{})
	first := notification(t, tenant, "+14155550111")
	// The same event delivered twice, and another event for the same
	// notification: one message.
	var n events.NotificationRequested
	if err := first.Decode(&n); err != nil {
		t.Fatal(err)
	}
	n.Body = "a second request for the same notification"
	sameNotification := testenv.NewEvent(t, events.TypeNotificationRequested, tenant, n)
	testenv.Publish(t, brokers, first, first, sameNotification)

	m := env.WaitMessage(t, tenant, n.NotificationID)
	if m.Status != "delivered" || m.Provider != "sink" || m.From == nil || *m.From != testenv.DefaultFrom ||
		m.To != "+14155550111" || m.Attempts != 1 || m.Body != "Pay here: https://pay.example.test/l/r/1" {
		t.Fatalf("message = %+v", m)
	}
	// A later notification proves the duplicates were consumed before it.
	later := notification(t, tenant, "+14155550112")
	testenv.Publish(t, brokers, later)
	var ln events.NotificationRequested
	if err := later.Decode(&ln); err != nil {
		t.Fatal(err)
	}
	env.WaitMessage(t, tenant, ln.NotificationID)
	if got := env.Messages(t, tenant, "+14155550111"); len(got) != 1 {
		t.Fatalf("messages to the number = %d, want 1: %+v", len(got), got)
	}
	// The operator plane as the contract writes it, ?to=+E164 with the '+'
	// not encoded (it arrives as a space).
	raw := env.Do(t, http.MethodGet, "/admin/v1/tenants/"+tenant+"/messages?to=+14155550111", testenv.AdminToken, nil)
	var byRaw struct{ Data []testenv.Message }
	raw.Decode(t, &byRaw)
	if raw.Status != http.StatusOK || len(byRaw.Data) != 1 || byRaw.Data[0].ID != m.ID {
		t.Fatalf("GET messages?to=+E164 (unencoded) = %d %s, want the one message", raw.Status, raw.Body)
	}
	// The operator plane lists the sink's outbox newest first.
	var order []string
	for _, m := range env.Messages(t, tenant, "") {
		order = append(order, m.To)
	}
	if diff := cmp.Diff([]string{"+14155550112", "+14155550111"}, order); diff != "" {
		t.Errorf("operator message list (-want +got):\n%s", diff)
	}
	outbox := env.Outbox(t, tenant)
	want := []string{events.TypeMessageQueued, events.TypeMessageSent, events.TypeMessageDelivered,
		events.TypeMessageQueued, events.TypeMessageSent, events.TypeMessageDelivered}
	if diff := cmp.Diff(want, messageTypes(outbox)); diff != "" {
		t.Fatalf("message events (-want +got):\n%s", diff)
	}
	var data events.Message
	if err := outbox[2].Decode(&data); err != nil {
		t.Fatal(err)
	}
	if data.ID != m.ID || data.NotificationID != n.NotificationID || data.TransactionID != n.TransactionID ||
		data.Status != "delivered" || data.ToLast4 != "0111" || data.Channel != "sms" || data.SentAt == nil {
		t.Errorf("message.delivered data = %+v", data)
	}
}

func TestSuppressedNumberGetsNoMessage(t *testing.T) {
	t.Parallel()
	brokers := testkit.Broker(t)
	env := testenv.Start(t, testenv.Options{Brokers: brokers})
	tenant := env.NewTenant(t, testenv.TenantOptions{})
	token := env.Token(t, tenant, "api:create-suppression")
	res := env.Do(t, http.MethodPost, "/api/v1/suppression-list", token, map[string]any{
		"contact_phone_id": env.Contacts.AddPhone(tenant, "+14155550122"), "reason": "manual", "channel": "sms"})
	if res.Status != http.StatusCreated {
		t.Fatalf("suppressing = %d %s", res.Status, res.Body)
	}
	evt := notification(t, tenant, "(415) 555-0122") // national format: not E.164 → failed
	blocked := notification(t, tenant, "+1 415 555 0122")
	testenv.Publish(t, brokers, evt, blocked)

	var bad, sup events.NotificationRequested
	_ = evt.Decode(&bad)
	_ = blocked.Decode(&sup)
	if m := env.WaitMessage(t, tenant, sup.NotificationID); m.Status != "suppressed" || m.ProviderMessageID != nil || m.Attempts != 0 {
		t.Fatalf("message to a suppressed number = %+v", m)
	}
	if m := env.WaitMessage(t, tenant, bad.NotificationID); m.Status != "failed" || m.FailureReason == nil || *m.FailureReason != "invalid_number" {
		t.Fatalf("message to a national number = %+v", m)
	}
	want := []string{events.TypeMessageFailed, events.TypeMessageSuppressed}
	if diff := cmp.Diff(want, messageTypes(env.Outbox(t, tenant))); diff != "" {
		t.Fatalf("message events (-want +got):\n%s", diff)
	}
}

func TestTenantSenderNumberFollowsTenantUpdated(t *testing.T) {
	t.Parallel()
	brokers := testkit.Broker(t)
	env := testenv.Start(t, testenv.Options{Brokers: brokers})
	// identity-svc publishes tenant.updated on the same brokers.
	tenant := env.NewTenant(t, testenv.TenantOptions{SMSNumber: "+15005550009"})
	plain := env.NewTenant(t, testenv.TenantOptions{})
	send := func(tenant, to string) testenv.Message {
		evt := notification(t, tenant, to)
		testenv.Publish(t, brokers, evt)
		var n events.NotificationRequested
		_ = evt.Decode(&n)
		return env.WaitMessage(t, tenant, n.NotificationID)
	}
	if m := send(tenant, "+14155550133"); m.From == nil || *m.From != "+15005550009" {
		t.Fatalf("message = %+v, want it from the tenant's number", m)
	}
	if m := send(plain, "+14155550134"); m.From == nil || *m.From != testenv.DefaultFrom {
		t.Fatalf("message of a tenant without a number = %+v", m)
	}
	// The operator gives the tenant another number: once optin-svc has
	// read the tenant.updated event, messages go out from it.
	newNumber := "+15005550019"
	if _, err := env.Admin.UpdateTenant(context.Background(), tenant, idclient.TenantInput{SMSNumber: &newNumber}); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "the tenant's new sender number", func() bool {
		m := send(tenant, "+14155550133")
		return m.From != nil && *m.From == newNumber
	})
	// Texts to the new number reach the tenant; the old number is no
	// one's (except for people the tenant wrote to from it: a reply).
	if got := env.Text(t, "+14155550135", newNumber, "HELP"); !strings.Contains(string(got.Body), "<Message>") {
		t.Errorf("HELP to the new number = %s", got.Body)
	}
	if got := env.Text(t, "+14155550135", "+15005550009", "HELP"); strings.Contains(string(got.Body), "<Message>") {
		t.Errorf("HELP to the old number = %s, want no reply", got.Body)
	}
}

func TestAdminMessagesNeedTheAdminToken(t *testing.T) {
	t.Parallel()
	env := testenv.Start(t, testenv.Options{})
	tenant := env.NewTenant(t, testenv.TenantOptions{})
	tests := []struct {
		name, path, token string
		status            int
		code              string
	}{
		{"no token", "/admin/v1/tenants/" + tenant + "/messages", "", 401, "unauthenticated"},
		{"wrong token", "/admin/v1/tenants/" + tenant + "/messages", "nope", 401, "unauthenticated"},
		{"internal JWT is not the admin token", "/admin/v1/tenants/" + tenant + "/messages", env.Token(t, tenant, "api:view-contact"), 401, "unauthenticated"},
		{"tenant id not a ULID", "/admin/v1/tenants/acme/messages", testenv.AdminToken, 404, "resource_not_found"},
		{"to not a number", "/admin/v1/tenants/" + tenant + "/messages?to=abc", testenv.AdminToken, 422, "validation_failed"},
		{"ok", "/admin/v1/tenants/" + tenant + "/messages?to=%2B14155550100", testenv.AdminToken, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := env.Do(t, http.MethodGet, tt.path, tt.token, nil)
			if res.Status != tt.status || res.ErrorCode() != tt.code {
				t.Fatalf("GET %s = %d %s, want %d %s", tt.path, res.Status, res.Body, tt.status, tt.code)
			}
		})
	}
}
