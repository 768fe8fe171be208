package sms_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/optin-svc/internal/sms"
)

const (
	accountSID = "AC00000000000000000000000000000001"
	authToken  = "twilio-auth-token"
)

// twilioAPI is Twilio's REST API as far as sending a message goes: it
// checks the request is exactly what Twilio expects, records it, and
// answers with the given status and body.
type twilioAPI struct {
	t       *testing.T
	status  int
	body    string
	headers map[string]string
	got     chan url.Values
}

func (a *twilioAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	t := a.t
	if r.Method != http.MethodPost || r.URL.Path != "/2010-04-01/Accounts/"+accountSID+"/Messages.json" || r.URL.RawQuery != "" {
		t.Errorf("request %s %s, want POST /2010-04-01/Accounts/%s/Messages.json", r.Method, r.URL, accountSID)
	}
	if user, pass, ok := r.BasicAuth(); !ok || user != accountSID || pass != authToken {
		t.Errorf("basic auth = %q %q %v, want the account SID and auth token", user, pass, ok)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/x-www-form-urlencoded" {
		t.Errorf("Content-Type = %q", ct)
	}
	raw, _ := io.ReadAll(r.Body)
	form, err := url.ParseQuery(string(raw))
	if err != nil {
		t.Errorf("body %q is not a form: %v", raw, err)
	}
	a.got <- form
	for k, v := range a.headers {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.status)
	_, _ = io.WriteString(w, a.body)
}

const createdBody = `{"account_sid":"` + accountSID + `","api_version":"2010-04-01","body":"Hi",
"date_created":"Thu, 24 Aug 2023 05:01:45 +0000","direction":"outbound-api","error_code":null,
"error_message":null,"from":"+15005550006","num_segments":"1","price":null,
"sid":"SM1f0e8ae6ade43cb3c0ce4525424e404f","status":"queued","to":"+14155550100",
"uri":"/2010-04-01/Accounts/` + accountSID + `/Messages/SM1f0e8ae6ade43cb3c0ce4525424e404f.json"}`

func TestTwilioSendsTheDocumentedRequest(t *testing.T) {
	t.Parallel()
	api := &twilioAPI{t: t, status: http.StatusCreated, body: createdBody, got: make(chan url.Values, 1)}
	srv := httptest.NewServer(api)
	defer srv.Close()
	tw := sms.NewTwilio(sms.TwilioConfig{BaseURL: srv.URL + "/", AccountSID: accountSID, AuthToken: authToken}, nil)

	res, err := tw.Send(context.Background(), sms.Outgoing{
		MessageID: "M1", To: "+14155550100", From: "+15005550006", Body: "Hi & welcome = 100%",
		StatusCallback: "https://pay.example.test/webhooks/sms/status?tenant=T1&message=M1",
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.ProviderMessageID != "SM1f0e8ae6ade43cb3c0ce4525424e404f" || res.Delivered {
		t.Errorf("Send() = %+v", res)
	}
	want := url.Values{
		"To": {"+14155550100"}, "From": {"+15005550006"}, "Body": {"Hi & welcome = 100%"},
		"StatusCallback": {"https://pay.example.test/webhooks/sms/status?tenant=T1&message=M1"},
	}
	if diff := cmp.Diff(want, <-api.got); diff != "" {
		t.Errorf("form (-want +got):\n%s", diff)
	}
}

func TestTwilioWithoutStatusCallbackOmitsTheField(t *testing.T) {
	t.Parallel()
	api := &twilioAPI{t: t, status: http.StatusCreated, body: createdBody, got: make(chan url.Values, 1)}
	srv := httptest.NewServer(api)
	defer srv.Close()
	tw := sms.NewTwilio(sms.TwilioConfig{BaseURL: srv.URL, AccountSID: accountSID, AuthToken: authToken}, nil)
	if _, err := tw.Send(context.Background(), sms.Outgoing{To: "+14155550100", From: "+15005550006", Body: "x"}); err != nil {
		t.Fatal(err)
	}
	if form := <-api.got; form.Has("StatusCallback") {
		t.Errorf("form has StatusCallback: %v", form)
	}
}

func TestTwilioRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		status  int
		body    string
		headers map[string]string
		want    sms.Error
	}{
		{"server error", 500, `{"code":20500,"message":"Internal Server Error","status":500}`, nil,
			sms.Error{Transient: true, Status: 500, Code: "20500", Reason: "provider error 20500"}},
		{"unavailable without body", 503, ``, nil,
			sms.Error{Transient: true, Status: 503, Reason: "provider answered 503"}},
		{"rate limited", 429, `{"code":20429,"message":"Too Many Requests","status":429}`, map[string]string{"Retry-After": "7"},
			sms.Error{Transient: true, Status: 429, Code: "20429", Reason: "provider error 20429", RetryAfter: 7 * time.Second}},
		{"invalid number", 400, `{"code":21211,"message":"The 'To' number +14155550100 is not a valid phone number.","more_info":"https://www.twilio.com/docs/errors/21211","status":400}`, nil,
			sms.Error{Status: 400, Code: "21211", Reason: "provider error 21211"}},
		{"unsubscribed recipient", 400, `{"code":21610,"message":"Attempt to send to unsubscribed recipient","status":400}`, nil,
			sms.Error{Status: 400, Code: "21610", Reason: "provider error 21610"}},
		{"bad credentials", 401, `{"code":20003,"message":"Authenticate","status":401}`, nil,
			sms.Error{Status: 401, Code: "20003", Reason: "provider error 20003"}},
		{"created without sid", 201, `{}`, nil,
			sms.Error{Transient: true, Status: 201, Reason: "provider answer without a message sid"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			api := &twilioAPI{t: t, status: tt.status, body: tt.body, headers: tt.headers, got: make(chan url.Values, 1)}
			srv := httptest.NewServer(api)
			defer srv.Close()
			tw := sms.NewTwilio(sms.TwilioConfig{BaseURL: srv.URL, AccountSID: accountSID, AuthToken: authToken}, nil)
			_, err := tw.Send(context.Background(), sms.Outgoing{To: "+14155550100", From: "+15005550006", Body: "x"})
			var got *sms.Error
			if !errors.As(err, &got) {
				t.Fatalf("Send() error = %v, want *sms.Error", err)
			}
			if diff := cmp.Diff(tt.want, *got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTwilioUnreachableOrSlowIsTransient(t *testing.T) {
	t.Parallel()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer slow.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	tests := map[string]string{"timeout": slow.URL, "connection refused": closedURL}
	for name, base := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tw := sms.NewTwilio(sms.TwilioConfig{BaseURL: base, AccountSID: accountSID, AuthToken: authToken},
				&http.Client{Timeout: 50 * time.Millisecond})
			_, err := tw.Send(context.Background(), sms.Outgoing{To: "+14155550100", From: "+15005550006", Body: "x"})
			if got := sms.AsError(err); err == nil || !got.Transient {
				t.Fatalf("Send() error = %v, want a transient *sms.Error", err)
			}
		})
	}
}
