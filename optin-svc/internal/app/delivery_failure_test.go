package app_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/optin-svc/internal/testenv"
)

// TestUndeliveredReportFailsTheMessage: Twilio's status callback
// "undelivered" moves a sent message to failed (message.failed, the
// provider's error code as the reason), and an unreachable-number code
// (30005) suppresses the number as a bounce.
func TestUndeliveredReportFailsTheMessage(t *testing.T) {
	t.Parallel()
	api := testenv.NewTwilioAPI(t)
	env, brokers := twilioEnv(t, api)
	tenant := env.NewTenant(t, testenv.TenantOptions{})
	token := env.Token(t, tenant, "api:view-any-suppression")
	evt := notification(t, tenant, "+14155550177")
	testenv.Publish(t, brokers, evt)
	var n events.NotificationRequested
	_ = evt.Decode(&n)
	m := env.WaitMessage(t, tenant, n.NotificationID)
	if m.Status != "sent" || m.ProviderMessageID == nil {
		t.Fatalf("message = %+v, want sent", m)
	}

	statusPath := "/webhooks/sms/status?" + url.Values{"tenant": {tenant}, "message": {m.ID}}.Encode()
	report := url.Values{"MessageSid": {*m.ProviderMessageID}, "MessageStatus": {"undelivered"}, "ErrorCode": {"30005"},
		"AccountSid": {testenv.TwilioAccountSID}, "To": {"+14155550177"}, "From": {testenv.DefaultFrom}}
	if res := env.PostSigned(t, statusPath, report); res.Status != http.StatusNoContent {
		t.Fatalf("callback = %d %s, want 204", res.Status, res.Body)
	}
	// A late "delivered" cannot move a failed message back.
	report.Set("MessageStatus", "delivered")
	report.Del("ErrorCode")
	env.PostSigned(t, statusPath, report)

	got := env.Messages(t, tenant, "+14155550177")
	if len(got) != 1 || got[0].Status != "failed" || got[0].FailureReason == nil || *got[0].FailureReason != "provider error 30005" {
		t.Fatalf("after the report: %+v, want failed with provider error 30005", got)
	}
	wantTypes := []string{events.TypeMessageQueued, events.TypeMessageSent, events.TypeMessageFailed}
	if diff := cmp.Diff(wantTypes, messageTypes(env.Outbox(t, tenant))); diff != "" {
		t.Errorf("message events (-want +got):\n%s", diff)
	}
	var page struct {
		Data []struct {
			PhoneLast4 string `json:"phone_last4"`
			Reason     string `json:"reason"`
			Source     string `json:"source"`
		} `json:"data"`
	}
	res := env.Do(t, http.MethodGet, "/api/v1/suppression-list", token, nil)
	res.Decode(t, &page)
	if len(page.Data) != 1 || page.Data[0].PhoneLast4 != "0177" || page.Data[0].Reason != "bounce" || page.Data[0].Source != "bounce" {
		t.Errorf("suppression list = %s, want the number as a bounce", res.Body)
	}
}
