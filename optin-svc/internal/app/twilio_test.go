package app_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/testkit"
	optin "github.com/paylane/paylane/optin-svc"
	"github.com/paylane/paylane/optin-svc/internal/testenv"
)

func twilioEnv(t *testing.T, api *testenv.TwilioAPI) (*testenv.Env, []string) {
	t.Helper()
	brokers := testkit.Broker(t)
	env := testenv.Start(t, testenv.Options{Brokers: brokers, Configure: func(c *optin.Config) {
		c.SMSProvider = optin.ProviderTwilio
		c.TwilioBaseURL = api.URL
		c.TwilioAccountSID = testenv.TwilioAccountSID
		c.TwilioAuthToken = testenv.TwilioAuthToken
		c.SMSAuthToken = testenv.TwilioAuthToken
	}})
	return env, brokers
}

func TestTwilioRetriesThenDeliveryCallback(t *testing.T) {
	t.Parallel()
	api := testenv.NewTwilioAPI(t,
		testenv.TwilioReply{Status: 503, Body: `{"code":20503,"message":"Service Unavailable","status":503}`},
		testenv.TwilioReply{Status: 429, Body: `{"code":20429,"message":"Too Many Requests","status":429}`})
	env, brokers := twilioEnv(t, api)
	tenant := env.NewTenant(t, testenv.TenantOptions{})
	evt := notification(t, tenant, "+14155550144")
	testenv.Publish(t, brokers, evt)
	var n events.NotificationRequested
	_ = evt.Decode(&n)

	m := env.WaitMessage(t, tenant, n.NotificationID)
	if m.Status != "sent" || m.Attempts != 3 || m.Provider != "twilio" || m.ProviderMessageID == nil {
		t.Fatalf("message = %+v, want sent on the third attempt", m)
	}
	forms := api.Forms()
	if len(forms) != 3 {
		t.Fatalf("Twilio got %d requests, want 3", len(forms))
	}
	callback := testenv.PublicBaseURL + "/webhooks/sms/status?" + url.Values{"tenant": {tenant}, "message": {m.ID}}.Encode()
	want := url.Values{"To": {"+14155550144"}, "From": {testenv.DefaultFrom}, "Body": {m.Body}, "StatusCallback": {callback}}
	if diff := cmp.Diff(want, forms[2]); diff != "" {
		t.Errorf("Twilio form (-want +got):\n%s", diff)
	}

	statusPath := callback[len(testenv.PublicBaseURL):]
	report := url.Values{"MessageSid": {*m.ProviderMessageID}, "MessageStatus": {"delivered"},
		"AccountSid": {testenv.TwilioAccountSID}, "To": {"+14155550144"}, "From": {testenv.DefaultFrom}}
	if res := env.PostForm(t, statusPath, report, "forged"); res.Status != http.StatusForbidden {
		t.Fatalf("forged callback = %d %s, want 403", res.Status, res.Body)
	}
	if res := env.PostSigned(t, statusPath, report); res.Status != http.StatusNoContent {
		t.Fatalf("callback = %d %s, want 204", res.Status, res.Body)
	}
	// A late "sent" report and a repeated "delivered" change nothing.
	report.Set("MessageStatus", "sent")
	env.PostSigned(t, statusPath, report)
	report.Set("MessageStatus", "delivered")
	env.PostSigned(t, statusPath, report)
	if got := env.Messages(t, tenant, ""); got[0].Status != "delivered" {
		t.Fatalf("after callbacks: %+v", got[0])
	}
	wantTypes := []string{events.TypeMessageQueued, events.TypeMessageSent, events.TypeMessageDelivered}
	if diff := cmp.Diff(wantTypes, messageTypes(env.Outbox(t, tenant))); diff != "" {
		t.Errorf("message events (-want +got):\n%s", diff)
	}
	// Two retryable refusals, then accepted; the forged report is not one.
	expectSMSSeries(t, env, map[string]float64{
		"sms_send_attempts_total twilio retryable":    2,
		"sms_send_attempts_total twilio accepted":     1,
		"sms_send_attempts_total twilio rejected":     0,
		"sms_delivery_reports_total twilio delivered": 2,
		"sms_delivery_reports_total twilio other":     1,
	})
}

func TestTwilioPermanentRefusals(t *testing.T) {
	t.Parallel()
	api := testenv.NewTwilioAPI(t,
		testenv.TwilioReply{Status: 400, Body: `{"code":21610,"message":"Attempt to send to unsubscribed recipient","status":400}`},
		testenv.TwilioReply{Status: 400, Body: `{"code":21211,"message":"Invalid 'To' Phone Number","status":400}`},
		testenv.TwilioReply{Status: 500, Body: `{}`}, testenv.TwilioReply{Status: 500, Body: `{}`}, testenv.TwilioReply{Status: 500, Body: `{}`})
	env, brokers := twilioEnv(t, api)
	tenant := env.NewTenant(t, testenv.TenantOptions{})
	token := env.Token(t, tenant, "api:view-any-suppression")

	stopped, invalid, down := notification(t, tenant, "+14155550155"), notification(t, tenant, "+14155550156"),
		notification(t, tenant, "+14155550157")
	for _, evt := range []events.Envelope{stopped, invalid, down} {
		testenv.Publish(t, brokers, evt) // one by one: the replies are taken in order
		var n events.NotificationRequested
		_ = evt.Decode(&n)
		env.WaitMessage(t, tenant, n.NotificationID)
	}
	got := env.Messages(t, tenant, "")
	reasons := map[string]string{}
	for _, m := range got {
		if m.Status != "failed" || m.FailureReason == nil {
			t.Fatalf("message = %+v, want failed", m)
		}
		reasons[m.To] = *m.FailureReason
	}
	wantReasons := map[string]string{"+14155550155": "provider error 21610", "+14155550156": "provider error 21211",
		"+14155550157": "provider answered 500"}
	if diff := cmp.Diff(wantReasons, reasons); diff != "" {
		t.Errorf("failure reasons (-want +got):\n%s", diff)
	}
	if n := len(api.Forms()); n != 5 {
		t.Errorf("Twilio got %d requests, want 5 (one each for final refusals, three for the 5xx)", n)
	}
	// The carrier's "unsubscribed" suppresses the number as the recipient's STOP.
	res := env.Do(t, http.MethodGet, "/api/v1/suppression-list", token, nil)
	var page struct {
		Data []struct {
			PhoneLast4 string `json:"phone_last4"`
			Source     string `json:"source"`
		} `json:"data"`
	}
	res.Decode(t, &page)
	if len(page.Data) != 1 || page.Data[0].PhoneLast4 != "0155" || page.Data[0].Source != "inbound_stop" {
		t.Errorf("suppression list = %s", res.Body)
	}
	// Two refusals for good; three 5xx answers, each one a provider call
	// a retry could have fixed (the last one ran out of attempts).
	expectSMSSeries(t, env, map[string]float64{
		"sms_send_attempts_total twilio rejected":  2,
		"sms_send_attempts_total twilio retryable": 3,
		"sms_send_attempts_total twilio accepted":  0,
	})
}
