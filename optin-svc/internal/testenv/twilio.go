package testenv

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/paylane/paylane/optin-svc/internal/sms"
)

// Twilio account of TwilioAPI.
const (
	TwilioAccountSID = "AC00000000000000000000000000000042"
	TwilioAuthToken  = "twilio-auth-token-42"
)

// TwilioReply is one canned answer of TwilioAPI.
type TwilioReply struct {
	Status int
	Body   string
}

// TwilioAPI stands in for Twilio's Messages endpoint (the provider's wire
// contract): it answers with the queued replies in order, then with 201 and
// a new message SID, and records each request's form.
type TwilioAPI struct {
	URL string

	mu      sync.Mutex
	replies []TwilioReply
	forms   []url.Values
	n       int
}

// NewTwilioAPI starts the stand-in until the test ends.
func NewTwilioAPI(t testing.TB, replies ...TwilioReply) *TwilioAPI {
	t.Helper()
	api := &TwilioAPI{replies: replies}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, _ := r.BasicAuth()
		if r.URL.Path != "/2010-04-01/Accounts/"+TwilioAccountSID+"/Messages.json" || user != TwilioAccountSID || pass != TwilioAuthToken {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"code":20003,"message":"Authenticate","status":401}`)
			return
		}
		raw, _ := io.ReadAll(r.Body)
		form, _ := url.ParseQuery(string(raw))
		reply := api.next(form)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(reply.Status)
		_, _ = io.WriteString(w, reply.Body)
	}))
	t.Cleanup(srv.Close)
	api.URL = srv.URL
	return api
}

func (a *TwilioAPI) next(form url.Values) TwilioReply {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.forms = append(a.forms, form)
	a.n++
	if len(a.replies) > 0 {
		r := a.replies[0]
		a.replies = a.replies[1:]
		return r
	}
	sid := "SM" + strings.Repeat("0", 30) + string(rune('a'+a.n%26)) + string(rune('a'+a.n/26%26))
	return TwilioReply{Status: http.StatusCreated, Body: `{"sid":"` + sid + `","status":"queued"}`}
}

// Forms returns the forms of the requests received so far.
func (a *TwilioAPI) Forms() []url.Values {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]url.Values(nil), a.forms...)
}

// PostSigned posts a form to optin-svc as the SMS provider does, signed
// with SMSAuthToken over the public URL of path.
func (e *Env) PostSigned(t testing.TB, path string, form url.Values) Response {
	t.Helper()
	return e.PostForm(t, path, form, sms.Signature(e.Config.SMSAuthToken, PublicBaseURL+path, form))
}

// PostForm posts a form with the given X-Twilio-Signature ("" for none).
func (e *Env) PostForm(t testing.TB, path string, form url.Values, signature string) Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.BaseURL+path, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if signature != "" {
		req.Header.Set(sms.SignatureHeader, signature)
	}
	return Send(t, req)
}
