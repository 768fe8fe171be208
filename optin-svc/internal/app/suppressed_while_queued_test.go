package app_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/testkit"
	optin "github.com/paylane/paylane/optin-svc"
	"github.com/paylane/paylane/optin-svc/internal/testenv"
)

// TestSuppressionIsCheckedAgainBeforeEachSend: a number suppressed while
// its message waits for a retry gets no SMS; the message ends suppressed
// (message.suppressed), not sent. The Twilio stand-in holds its first
// request until the suppression is committed, then answers 503, so the
// retry is the dispatcher's next look at the message.
func TestSuppressionIsCheckedAgainBeforeEachSend(t *testing.T) {
	t.Parallel()
	arrived, release := make(chan struct{}), make(chan struct{})
	var (
		mu    sync.Mutex
		calls int
	)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if n == 1 {
			close(arrived)
			<-release
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, `{"code":20503,"message":"Service Unavailable","status":503}`)
			return
		}
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, `{"sid":"SM00000000000000000000000000000001","status":"queued"}`)
	}))
	defer api.Close()
	defer func() { // a failing test still lets the held request go
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	brokers := testkit.Broker(t)
	env := testenv.Start(t, testenv.Options{Brokers: brokers, Configure: func(c *optin.Config) {
		c.SMSProvider = optin.ProviderTwilio
		c.TwilioBaseURL = api.URL
		c.TwilioAccountSID = testenv.TwilioAccountSID
		c.TwilioAuthToken = testenv.TwilioAuthToken
		c.SMSAuthToken = testenv.TwilioAuthToken
	}})
	tenant := env.NewTenant(t, testenv.TenantOptions{})
	token := env.Token(t, tenant, "api:create-suppression")
	const number = "+14155550166"
	evt := notification(t, tenant, number)
	testenv.Publish(t, brokers, evt)

	select { // the first provider call is in flight
	case <-arrived:
	case <-time.After(time.Minute):
		t.Fatal("the dispatcher never called the provider")
	}
	res := env.Do(t, http.MethodPost, "/api/v1/suppression-list", token, map[string]any{
		"contact_phone_id": env.Contacts.AddPhone(tenant, number), "reason": "manual", "channel": "sms"})
	close(release)
	if res.Status != http.StatusCreated {
		t.Fatalf("suppressing = %d %s", res.Status, res.Body)
	}
	var n events.NotificationRequested
	_ = evt.Decode(&n)
	m := env.WaitMessage(t, tenant, n.NotificationID)
	if m.Status != "suppressed" || m.ProviderMessageID != nil || m.Attempts != 1 {
		t.Fatalf("message = %+v, want suppressed after one refused attempt", m)
	}
	mu.Lock()
	defer mu.Unlock()
	if calls != 1 {
		t.Errorf("Twilio got %d requests, want 1 (the number was suppressed before the retry)", calls)
	}
	if diff := cmp.Diff([]string{events.TypeMessageQueued, events.TypeMessageSuppressed}, messageTypes(env.Outbox(t, tenant))); diff != "" {
		t.Errorf("message events (-want +got):\n%s", diff)
	}
}
