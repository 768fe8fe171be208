package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	twilio "github.com/twilio/twilio-go/client"

	"github.com/paylane/paylane/libs/events"
	optin "github.com/paylane/paylane/optin-svc"
	"github.com/paylane/paylane/optin-svc/internal/sms"
	"github.com/paylane/paylane/optin-svc/internal/testenv"
)

const tenantNumber = "+15005550010"

type twimlReply struct {
	Status  int
	Type    string
	Message string
	Empty   bool
}

func twimlOf(res testenv.Response) twimlReply {
	body := string(res.Body)
	msg := ""
	if i := strings.Index(body, "<Message>"); i >= 0 {
		msg = body[i+len("<Message>") : strings.Index(body, "</Message>")]
	}
	return twimlReply{Status: res.Status, Type: res.Header.Get("Content-Type"), Message: msg,
		Empty: strings.HasSuffix(body, "<Response/>")}
}

func TestInboundStopOptsOutAndStartLiftsIt(t *testing.T) {
	t.Parallel()
	env := testenv.Start(t, testenv.Options{})
	tenant := env.NewTenant(t, testenv.TenantOptions{OptIn: true, SMSNumber: tenantNumber})
	token := env.Token(t, tenant, viewCodes, viewSuppressions, deleteSuppressions)
	code := env.NewCode(t, tenant, map[string]any{"name": "Desk"})
	const person = "+14155550200"
	env.Subscribe(t, code, person)

	form := testenv.Inbound(person, tenantNumber, " Stop ")
	sig := sms.Signature(testenv.SMSAuthToken, testenv.PublicBaseURL+testenv.InboundPath, form)
	res := env.PostForm(t, testenv.InboundPath, form, sig)
	got := twimlOf(res)
	if got.Status != 200 || !strings.HasPrefix(got.Type, "application/xml") || !strings.Contains(got.Message, "You are unsubscribed") {
		t.Fatalf("STOP answer = %+v %s", got, res.Body)
	}
	// The official SDK accepts the very request optin-svc accepted.
	rv := twilio.NewRequestValidator(testenv.SMSAuthToken)
	if !rv.ValidateBody(testenv.PublicBaseURL+testenv.InboundPath, []byte(form.Encode()), sig) {
		t.Error("twilio-go RequestValidator refuses the signature optin-svc accepted")
	}
	// A redelivery of the same message changes nothing again.
	if again := twimlOf(env.PostForm(t, testenv.InboundPath, form, sig)); again.Message != got.Message {
		t.Errorf("redelivery answer = %+v", again)
	}

	if c := consents(t, env, token, ""); len(c) != 1 || c[0].Status != "revoked" {
		t.Fatalf("consents after STOP = %+v", c)
	}
	list := env.Do(t, http.MethodGet, "/api/v1/suppression-list", token, nil)
	var page suppressionPage
	list.Decode(t, &page)
	if len(page.Data) != 1 || page.Data[0].Source != "inbound_stop" || page.Data[0].Reason != "manual" || page.Data[0].PhoneLast4 != "0200" {
		t.Fatalf("suppression list after STOP = %s", list.Body)
	}
	del := env.Do(t, http.MethodDelete, "/api/v1/suppression-list/%2B14155550200?channel=sms", token, nil)
	if del.Status != http.StatusUnprocessableEntity || del.ErrorCode() != "validation_failed" {
		t.Fatalf("API DELETE of a STOP entry = %d %s, want 422", del.Status, del.Body)
	}

	if start := twimlOf(env.Text(t, person, tenantNumber, "START")); !strings.Contains(start.Message, "resubscribed") {
		t.Fatalf("START answer = %+v", start)
	}
	list = env.Do(t, http.MethodGet, "/api/v1/suppression-list", token, nil)
	list.Decode(t, &page)
	if len(page.Data) != 0 {
		t.Fatalf("suppression list after START = %s", list.Body)
	}
	want := []string{events.TypeOptInConfirmed, events.TypeOptInRevoked, events.TypeSuppressionCreated, events.TypeSuppressionDeleted}
	if diff := cmp.Diff(want, testenv.Types(env.Outbox(t, tenant))); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestInboundStopHoldsEntriesOfOtherSources: a STOP that finds the number
// suppressed by the API keeps that entry (source api) but holds it, so the
// tenant can no longer lift it; START releases the hold and leaves the
// tenant's entry, which the API may then lift.
func TestInboundStopHoldsEntriesOfOtherSources(t *testing.T) {
	t.Parallel()
	env := testenv.Start(t, testenv.Options{})
	tenant := env.NewTenant(t, testenv.TenantOptions{OptIn: true, SMSNumber: tenantNumber})
	token := env.Token(t, tenant, viewSuppressions, createSuppression, deleteSuppressions)
	const person = "+14155550210"
	const path = "/api/v1/suppression-list/%2B14155550210?channel=sms"
	res := env.Do(t, http.MethodPost, "/api/v1/suppression-list", token, map[string]any{
		"contact_phone_id": env.Contacts.AddPhone(tenant, person), "reason": "complaint"})
	if res.Status != http.StatusCreated {
		t.Fatalf("suppressing = %d %s", res.Status, res.Body)
	}
	list := func() []suppressionRow {
		t.Helper()
		var page suppressionPage
		env.Do(t, http.MethodGet, "/api/v1/suppression-list", token, nil).Decode(t, &page)
		return page.Data
	}

	env.Text(t, person, tenantNumber, "STOP")
	if rows := list(); len(rows) != 1 || rows[0].Source != "api" || rows[0].Reason != "complaint" {
		t.Fatalf("suppression list after STOP = %+v, want the API entry as it was", rows)
	}
	if del := env.Do(t, http.MethodDelete, path, token, nil); del.Status != http.StatusUnprocessableEntity ||
		del.ErrorCode() != "validation_failed" {
		t.Fatalf("API DELETE after the recipient's STOP = %d %s, want 422", del.Status, del.Body)
	}
	env.Text(t, person, tenantNumber, "STOP") // a second STOP changes nothing

	env.Text(t, person, tenantNumber, "START") // lifts only inbound_stop entries, releases the hold
	if rows := list(); len(rows) != 1 || rows[0].Source != "api" || rows[0].Reason != "complaint" {
		t.Fatalf("suppression list after START = %+v, want the API entry untouched", rows)
	}
	if del := env.Do(t, http.MethodDelete, path, token, nil); del.Status != http.StatusNoContent {
		t.Fatalf("API DELETE after START = %d %s, want 204", del.Status, del.Body)
	}
	want := []string{events.TypeSuppressionCreated, events.TypeSuppressionDeleted}
	if diff := cmp.Diff(want, testenv.Types(env.Outbox(t, tenant))); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestInboundYesConfirmsDoubleOptIn(t *testing.T) {
	t.Parallel()
	env := testenv.Start(t, testenv.Options{})
	// No number of its own: the confirmation goes out from the default
	// sender, and the reply to it finds the tenant by that conversation.
	tenant := env.NewTenant(t, testenv.TenantOptions{OptIn: true})
	token := env.Token(t, tenant, viewCodes)
	code := env.NewCode(t, tenant, map[string]any{"name": "Poster", "double_opt_in": true})
	const person = "+14155550220"
	env.Subscribe(t, code, person)
	testenv.Eventually(t, "the confirmation SMS", func() bool {
		list := env.Messages(t, tenant, person)
		return len(list) == 1 && list[0].Status == "delivered"
	})
	if c := consents(t, env, token, ""); len(c) != 1 || c[0].Status != "pending" {
		t.Fatalf("consents before YES = %+v", c)
	}

	if got := twimlOf(env.Text(t, person, testenv.DefaultFrom, "yes")); !strings.Contains(got.Message, "you are subscribed") {
		t.Fatalf("YES answer = %+v", got)
	}
	c := consents(t, env, token, "")
	if len(c) != 1 || c[0].Status != "confirmed" || c[0].ConfirmedAt == nil || c[0].OptInCodeID == nil || *c[0].OptInCodeID != code.ID {
		t.Fatalf("consents after YES = %+v", c)
	}
	var one struct{ Data testenv.Code }
	env.Do(t, http.MethodGet, "/api/v1/opt-in-codes/"+code.ID, token, nil).Decode(t, &one)
	if one.Data.OptInCount != 1 {
		t.Errorf("opt_in_count = %d, want 1", one.Data.OptInCount)
	}
	var confirmed []string
	for _, e := range env.Outbox(t, tenant) {
		if e.Type == events.TypeOptInConfirmed {
			confirmed = append(confirmed, e.Type)
		}
	}
	if len(confirmed) != 1 {
		t.Errorf("opt_in.confirmed events = %d, want 1", len(confirmed))
	}
}

func TestInboundYesWithoutConsentRecordsOne(t *testing.T) {
	t.Parallel()
	env := testenv.Start(t, testenv.Options{})
	tenant := env.NewTenant(t, testenv.TenantOptions{OptIn: true, SMSNumber: tenantNumber})
	token := env.Token(t, tenant, viewCodes)
	const person = "+14155550230"
	env.Text(t, person, tenantNumber, "YES")
	c := consents(t, env, token, "")
	contact := env.Contacts.ContactOf(tenant, person)
	if len(c) != 1 || c[0].Status != "confirmed" || c[0].OptInCodeID != nil || contact == "" || c[0].ContactID != contact {
		t.Fatalf("consents = %+v (contact %s)", c, contact)
	}
}

func TestInboundRoutingAndReplies(t *testing.T) {
	t.Parallel()
	env := testenv.Start(t, testenv.Options{})
	tenant := env.NewTenant(t, testenv.TenantOptions{OptIn: true, SMSNumber: tenantNumber})
	tests := []struct {
		name, from, to, body string
		want                 string
		empty                bool
	}{
		{"help", "+14155550240", tenantNumber, "HELP", "Reply STOP to unsubscribe", false},
		{"other text", "+14155550240", tenantNumber, "when is my bill due?", "", true},
		{"unknown sender number", "+14155550240", "+15005550099", "STOP", "", true},
		{"default number without conversation", "+14155550240", testenv.DefaultFrom, "HELP", "", true},
		{"not a number", "hello", tenantNumber, "STOP", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := twimlOf(env.Text(t, tt.from, tt.to, tt.body))
			if got.Status != 200 || got.Empty != tt.empty || !strings.Contains(got.Message, tt.want) {
				t.Fatalf("answer = %+v, want message with %q (empty %v)", got, tt.want, tt.empty)
			}
		})
	}
	if types := testenv.Types(env.Outbox(t, tenant)); len(types) != 0 {
		t.Errorf("replies without a change recorded events: %v", types)
	}
	for _, sig := range []string{"", "bm90IGEgc2lnbmF0dXJl"} {
		res := env.PostForm(t, testenv.InboundPath, testenv.Inbound("+14155550240", tenantNumber, "STOP"), sig)
		if res.Status != http.StatusForbidden || res.ErrorCode() != "invalid_signature" {
			t.Errorf("signature %q: %d %s, want 403 invalid_signature", sig, res.Status, res.Body)
		}
	}
}

func TestInboundToTheDefaultNumberReachesTheDefaultTenant(t *testing.T) {
	t.Parallel()
	first := testenv.Start(t, testenv.Options{})
	tenant := first.NewTenant(t, testenv.TenantOptions{OptIn: true})
	env := first.StartAnother(t, testenv.Options{Configure: func(c *optin.Config) { c.SMSDefaultTenant = tenant }})
	token := env.Token(t, tenant, viewSuppressions)
	got := twimlOf(env.Text(t, "+14155550250", testenv.DefaultFrom, "STOP"))
	if !strings.Contains(got.Message, "You are unsubscribed") {
		t.Fatalf("answer = %+v", got)
	}
	list := env.Do(t, http.MethodGet, "/api/v1/suppression-list", token, nil)
	var page suppressionPage
	list.Decode(t, &page)
	if len(page.Data) != 1 || page.Data[0].PhoneLast4 != "0250" {
		t.Fatalf("default tenant's suppression list = %s", list.Body)
	}
	unknown := first.StartAnother(t, testenv.Options{Configure: func(c *optin.Config) { c.SMSDefaultTenant = "01J00000000000000000000000" }})
	if got := twimlOf(unknown.Text(t, "+14155550250", testenv.DefaultFrom, "HELP")); got.Status != 200 || !got.Empty {
		t.Fatalf("answer for a default tenant that does not exist = %+v, want none", got)
	}
}
