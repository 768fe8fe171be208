package app_test

import (
	"context"
	"net/http"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	idclient "github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/tenancy"
	"github.com/paylane/paylane/optin-svc/internal/app"
	"github.com/paylane/paylane/optin-svc/internal/peers"
	"github.com/paylane/paylane/optin-svc/internal/store"
	"github.com/paylane/paylane/optin-svc/internal/testenv"
	transactions "github.com/paylane/paylane/transactions-svc/client"
)

// batchApp returns the use cases on env's database and its transactions-svc
// fake, as the service wires them, for tests that hand HandleBatch a batch
// of their choosing (env runs without brokers, so its own consumer does not
// take the events; its dispatcher sends what is queued).
func batchApp(env *testenv.Env) *app.App {
	tokens := idclient.NewWithSecret(env.IdentityURL, testenv.ServiceSecret, nil).WithService("optin-svc")
	return app.New(app.Deps{Store: store.New(env.Pool),
		Transactions: peers.NewTransactions(transactions.New(env.Transactions.URL, nil), tokens)})
}

// recorded is a message as the tenant's scope reads it.
type recorded struct {
	To, Body, Status, Reason string
}

// recordedMessages returns the tenant's messages by notification id, read
// in its scope (row-level security) as the service's role; the status of
// one the dispatcher already sent reads queued.
func recordedMessages(t *testing.T, env *testenv.Env, tenant string) map[string]recorded {
	t.Helper()
	out := map[string]recorded{}
	err := tenancy.Read(context.Background(), env.Pool, tenant, func(tx pgx.Tx) error {
		rows, err := tx.Query(context.Background(),
			`SELECT notification_id, to_phone, body, status, coalesce(failure_reason, '') FROM messages`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			var m recorded
			if err := rows.Scan(&id, &m.To, &m.Body, &m.Status, &m.Reason); err != nil {
				return err
			}
			if m.Status == "sent" || m.Status == "delivered" {
				m.Status = "queued"
			}
			out[id] = m
		}
		return rows.Err()
	})
	if err != nil {
		t.Fatalf("reading messages: %v", err)
	}
	return out
}

// firstEvents returns the notification id of each message.* event the
// tenant's outbox holds of the status type, in order.
func firstEvents(t *testing.T, env *testenv.Env, tenant, typ string) []string {
	t.Helper()
	var out []string
	for _, e := range env.Outbox(t, tenant) {
		var m events.Message
		if e.Type == typ && e.Decode(&m) == nil {
			out = append(out, m.NotificationID)
		}
	}
	return out
}

// notificationIDs returns the notification ids of the tenant's messages on
// the operator plane, sorted.
func notificationIDs(t *testing.T, env *testenv.Env, tenant string) []string {
	t.Helper()
	var out []string
	for _, m := range env.Messages(t, tenant, "") {
		out = append(out, m.NotificationID)
	}
	sort.Strings(out)
	return out
}

// A batch holding several tenants' notifications records each tenant's
// messages in its own scope with its own notifications' numbers and texts,
// reading transactions-svc once per tenant; the same batch delivered again
// changes nothing.
func TestBatchOfSeveralTenants(t *testing.T) {
	t.Parallel()
	env := testenv.Start(t, testenv.Options{})
	a := batchApp(env)
	tenantA := env.NewTenant(t, testenv.TenantOptions{})
	tenantB := env.NewTenant(t, testenv.TenantOptions{})
	a1, a1ID := idOnly(t, env, tenantA, "+14155550151", "A one")
	a2, a2ID := idOnly(t, env, tenantA, "+14155550152", "A two")
	b1, b1ID := idOnly(t, env, tenantB, "+14155550161", "B one")
	// Tenant B's event names tenant A's notification id: B's own, at B.
	env.Transactions.AddNotification(tenantB, transactions.Notification{ID: a1ID, To: "+14155550162", Body: "B's own"})
	b2 := testenv.NewEvent(t, events.TypeNotificationRequested, tenantB, events.NotificationRequested{
		NotificationID: a1ID, Kind: events.KindPaymentLink, TransactionID: ids.New(), ContactID: ids.New()})
	legacy := notification(t, tenantA, "+14155550153")
	var l events.NotificationRequested
	_ = legacy.Decode(&l)
	batch := []events.Envelope{a1, b1, a2, b2, legacy}

	calls := env.Transactions.Calls()
	if err := a.HandleBatch(context.Background(), batch); err != nil {
		t.Fatalf("HandleBatch: %v", err)
	}
	if got := env.Transactions.Calls() - calls; got != 2 {
		t.Errorf("transactions-svc calls = %d, want one per tenant", got)
	}
	wantA := map[string]recorded{
		a1ID:             {To: "+14155550151", Body: "A one", Status: "queued"},
		a2ID:             {To: "+14155550152", Body: "A two", Status: "queued"},
		l.NotificationID: {To: "+14155550153", Body: l.Body, Status: "queued"},
	}
	if diff := cmp.Diff(wantA, recordedMessages(t, env, tenantA)); diff != "" {
		t.Errorf("tenant A's messages (-want +got):\n%s", diff)
	}
	wantB := map[string]recorded{
		b1ID: {To: "+14155550161", Body: "B one", Status: "queued"},
		a1ID: {To: "+14155550162", Body: "B's own", Status: "queued"},
	}
	if diff := cmp.Diff(wantB, recordedMessages(t, env, tenantB)); diff != "" {
		t.Errorf("tenant B's messages (-want +got):\n%s", diff)
	}
	// The operator plane too shows each tenant its own.
	listed := []string{a1ID, a2ID, l.NotificationID}
	sort.Strings(listed)
	if diff := cmp.Diff(listed, notificationIDs(t, env, tenantA)); diff != "" {
		t.Errorf("tenant A's messages listed (-want +got):\n%s", diff)
	}
	// message.queued in the events' order, each in its tenant's outbox.
	if diff := cmp.Diff([]string{a1ID, a2ID, l.NotificationID}, firstEvents(t, env, tenantA, events.TypeMessageQueued)); diff != "" {
		t.Errorf("tenant A's message.queued (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{b1ID, a1ID}, firstEvents(t, env, tenantB, events.TypeMessageQueued)); diff != "" {
		t.Errorf("tenant B's message.queued (-want +got):\n%s", diff)
	}

	// Delivered again: nothing changes.
	if err := a.HandleBatch(context.Background(), batch); err != nil {
		t.Fatalf("HandleBatch again: %v", err)
	}
	if diff := cmp.Diff(wantA, recordedMessages(t, env, tenantA)); diff != "" {
		t.Errorf("tenant A's messages after the redelivery (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantB, recordedMessages(t, env, tenantB)); diff != "" {
		t.Errorf("tenant B's messages after the redelivery (-want +got):\n%s", diff)
	}
	if n := len(firstEvents(t, env, tenantA, events.TypeMessageQueued)) + len(firstEvents(t, env, tenantB, events.TypeMessageQueued)); n != 5 {
		t.Errorf("message.queued events after the redelivery = %d, want 5", n)
	}
}

// In one batch of a tenant every request keeps its outcome: a notification
// transactions-svc does not have fails (notification_unavailable), as does
// an id it cannot have made, without holding up the rest; a suppressed
// number is suppressed; a bad number or body fails; two events of one
// notification make one message.
func TestBatchOutcomes(t *testing.T) {
	t.Parallel()
	env := testenv.Start(t, testenv.Options{})
	a := batchApp(env)
	tenant := env.NewTenant(t, testenv.TenantOptions{})
	token := env.Token(t, tenant, "api:create-suppression")
	res := env.Do(t, http.MethodPost, "/api/v1/suppression-list", token, map[string]any{
		"contact_phone_id": env.Contacts.AddPhone(tenant, "+14155550172"), "reason": "manual", "channel": "sms"})
	if res.Status != http.StatusCreated {
		t.Fatalf("suppressing = %d %s", res.Status, res.Body)
	}
	ok, okID := idOnly(t, env, tenant, "+14155550171", "Pay here")
	gone, goneID := idOnly(t, env, tenant, "", "")
	sup, supID := idOnly(t, env, tenant, "+14155550172", "Pay here too")
	var o events.NotificationRequested
	_ = ok.Decode(&o)
	again := testenv.NewEvent(t, events.TypeNotificationRequested, tenant, o) // same notification, another event
	foreign := testenv.NewEvent(t, events.TypeNotificationRequested, tenant, events.NotificationRequested{
		NotificationID: "not-a-notification-id", Kind: events.KindPaymentLink})
	badNumber := notification(t, tenant, "(415) 555-0173")
	var bn events.NotificationRequested
	_ = badNumber.Decode(&bn)
	bn.NotificationID, bn.To, bn.Body = ids.New(), "+14155550174", " "
	badBody := testenv.NewEvent(t, events.TypeNotificationRequested, tenant, bn)
	var bad events.NotificationRequested
	_ = badNumber.Decode(&bad)

	if err := a.HandleBatch(context.Background(), []events.Envelope{ok, gone, sup, again, foreign, badNumber, badBody}); err != nil {
		t.Fatalf("HandleBatch: %v", err)
	}
	want := map[string]recorded{
		okID:                    {To: "+14155550171", Body: "Pay here", Status: "queued"},
		goneID:                  {Status: "failed", Reason: "notification_unavailable"},
		supID:                   {To: "+14155550172", Body: "Pay here too", Status: "suppressed"},
		"not-a-notification-id": {Status: "failed", Reason: "notification_unavailable"},
		bad.NotificationID:      {To: "(415) 555-0173", Body: bad.Body, Status: "failed", Reason: "invalid_number"},
		bn.NotificationID:       {To: "+14155550174", Body: " ", Status: "failed", Reason: "invalid_body"},
	}
	if diff := cmp.Diff(want, recordedMessages(t, env, tenant)); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	for typ, want := range map[string][]string{
		events.TypeMessageQueued:     {okID},
		events.TypeMessageSuppressed: {supID},
		events.TypeMessageFailed:     {goneID, "not-a-notification-id", bad.NotificationID, bn.NotificationID},
	} {
		if diff := cmp.Diff(want, firstEvents(t, env, tenant, typ)); diff != "" {
			t.Errorf("%s events (-want +got):\n%s", typ, diff)
		}
	}
}

// While transactions-svc cannot answer for a tenant, the batch fails and
// records nothing of that tenant (its events stay unclaimed); tenants
// handled before it keep what they recorded. Retried once transactions-svc
// answers, the batch records the rest and nothing twice.
func TestBatchWaitsForTransactions(t *testing.T) {
	t.Parallel()
	env := testenv.Start(t, testenv.Options{})
	a := batchApp(env)
	first := env.NewTenant(t, testenv.TenantOptions{})
	down := env.NewTenant(t, testenv.TenantOptions{})
	f1, f1ID := idOnly(t, env, first, "+14155550181", "First")
	d1, d1ID := idOnly(t, env, down, "+14155550182", "Down one")
	d2, d2ID := idOnly(t, env, down, "+14155550183", "Down two")
	batch := []events.Envelope{f1, d1, d2}

	env.Transactions.FailTenant(down, http.StatusServiceUnavailable)
	if err := a.HandleBatch(context.Background(), batch); err == nil {
		t.Fatal("HandleBatch with transactions-svc down for a tenant succeeded")
	}
	if got := notificationIDs(t, env, down); len(got) != 0 {
		t.Fatalf("messages of the tenant transactions-svc could not answer for: %v", got)
	}
	var claims int
	if err := env.Owner.QueryRow(context.Background(), `SELECT count(*) FROM inbox WHERE event_id = ANY($1)`,
		[]string{d1.ID, d2.ID}).Scan(&claims); err != nil || claims != 0 {
		t.Fatalf("claims of the failed tenant's events = %d, %v; want 0", claims, err)
	}
	if diff := cmp.Diff([]string{f1ID}, notificationIDs(t, env, first)); diff != "" {
		t.Fatalf("messages of the tenant handled first (-want +got):\n%s", diff)
	}

	env.Transactions.FailTenant(down, 0)
	if err := a.HandleBatch(context.Background(), batch); err != nil {
		t.Fatalf("HandleBatch retried: %v", err)
	}
	want := []string{d1ID, d2ID}
	sort.Strings(want)
	if diff := cmp.Diff(want, notificationIDs(t, env, down)); diff != "" {
		t.Errorf("messages after the retry (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{f1ID}, firstEvents(t, env, first, events.TypeMessageQueued)); diff != "" {
		t.Errorf("message.queued of the tenant handled first (-want +got):\n%s", diff)
	}
}

// Events whose message could never be stored (a NUL in a text, a
// notification id or kind too long, a tenant id no tenant can have) are
// skipped: they fail no batch, so they hold back none of the good events
// fetched with them.
func TestBatchSkipsWhatCannotBeStored(t *testing.T) {
	t.Parallel()
	env := testenv.Start(t, testenv.Options{})
	a := batchApp(env)
	tenant := env.NewTenant(t, testenv.TenantOptions{})
	good, goodID := idOnly(t, env, tenant, "+14155550191", "Pay here")
	carried := func(mod func(*events.NotificationRequested)) events.Envelope {
		n := events.NotificationRequested{NotificationID: ids.New(), Kind: events.KindPaymentLink,
			TransactionID: ids.New(), ContactID: ids.New(), To: "+14155550192", Body: "Pay here"}
		mod(&n)
		return testenv.NewEvent(t, events.TypeNotificationRequested, tenant, n)
	}
	long := make([]byte, 129)
	for i := range long {
		long[i] = 'n'
	}
	malformedTenant := notification(t, tenant, "+14155550193")
	malformedTenant.TenantID = "ten\x00ant"
	tenantEvent := testenv.NewEvent(t, events.TypeTenantUpdated, tenant, map[string]any{
		"id": tenant, "name": "Bad\x00name", "default_region": "US"})
	batch := []events.Envelope{
		carried(func(n *events.NotificationRequested) { n.Body = "Pay\x00here" }),
		carried(func(n *events.NotificationRequested) { n.To = "+1415555\x000194" }),
		carried(func(n *events.NotificationRequested) { n.NotificationID = string(long) }),
		carried(func(n *events.NotificationRequested) { n.Kind = "payment\x00link" }),
		malformedTenant, tenantEvent, good,
	}
	if err := a.HandleBatch(context.Background(), batch); err != nil {
		t.Fatalf("HandleBatch: %v", err)
	}
	want := map[string]recorded{goodID: {To: "+14155550191", Body: "Pay here", Status: "queued"}}
	if diff := cmp.Diff(want, recordedMessages(t, env, tenant)); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}
