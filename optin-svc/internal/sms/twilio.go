package sms

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// twilioTimeout bounds one call to Twilio's API.
const twilioTimeout = 15 * time.Second

// TwilioConfig names the Twilio account messages are sent from.
type TwilioConfig struct {
	// BaseURL is Twilio's REST API ("https://api.twilio.com"; tests point
	// it at their own server).
	BaseURL    string
	AccountSID string
	AuthToken  string
}

// Twilio sends SMS through Twilio's Programmable Messaging REST API:
// POST {BaseURL}/2010-04-01/Accounts/{AccountSid}/Messages.json with the
// form fields To, From, Body and StatusCallback, authenticated by HTTP
// basic auth (account SID, auth token).
type Twilio struct {
	cfg TwilioConfig
	hc  *http.Client
}

// twilioIdleConns is how many connections to Twilio a nil hc keeps open:
// the dispatcher makes up to 8 calls at a time, and with Go's default of 2
// the others would each open (and handshake) a new one.
const twilioIdleConns = 8

// NewTwilio returns the Twilio adapter; a nil hc uses a client with a 15 s
// timeout that keeps twilioIdleConns connections open.
func NewTwilio(cfg TwilioConfig, hc *http.Client) *Twilio {
	if hc == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = twilioIdleConns
		hc = &http.Client{Timeout: twilioTimeout, Transport: tr}
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	return &Twilio{cfg: cfg, hc: hc}
}

// Name implements Provider.
func (t *Twilio) Name() string { return "twilio" }

// twilioMessage is the part of Twilio's Message resource read here.
type twilioMessage struct {
	SID    string `json:"sid"`
	Status string `json:"status"`
}

// twilioError is Twilio's error body.
type twilioError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Status  int    `json:"status"`
}

// Send implements Provider.
func (t *Twilio) Send(ctx context.Context, msg Outgoing) (Result, error) {
	form := url.Values{"To": {msg.To}, "From": {msg.From}, "Body": {msg.Body}}
	if msg.StatusCallback != "" {
		form.Set("StatusCallback", msg.StatusCallback)
	}
	endpoint := t.cfg.BaseURL + "/2010-04-01/Accounts/" + url.PathEscape(t.cfg.AccountSID) + "/Messages.json"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return Result{}, &Error{Reason: "building provider request"}
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.SetBasicAuth(t.cfg.AccountSID, t.cfg.AuthToken)
	resp, err := t.hc.Do(req)
	if err != nil {
		// Timeouts, refused connections, resets: Twilio may be back soon.
		return Result{}, &Error{Transient: true, Reason: "provider unreachable"}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return Result{}, &Error{Transient: true, Status: resp.StatusCode, Reason: "provider answer unreadable"}
	}
	if resp.StatusCode == http.StatusCreated || resp.StatusCode == http.StatusOK {
		var m twilioMessage
		if err := json.Unmarshal(body, &m); err != nil || m.SID == "" {
			return Result{}, &Error{Transient: true, Status: resp.StatusCode, Reason: "provider answer without a message sid"}
		}
		return Result{ProviderMessageID: m.SID}, nil
	}
	return Result{}, twilioRefusal(resp, body)
}

// twilioRefusal turns a non-2xx answer into an *Error: 429 and 5xx are
// transient, other 4xx are final. Twilio's message text is left out: it
// may quote the phone number.
func twilioRefusal(resp *http.Response, body []byte) *Error {
	var te twilioError
	_ = json.Unmarshal(body, &te)
	e := &Error{Status: resp.StatusCode}
	if te.Code != 0 {
		e.Code = strconv.Itoa(te.Code)
	}
	e.Transient = resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= http.StatusInternalServerError
	switch {
	case e.Code != "":
		e.Reason = "provider error " + e.Code
	default:
		e.Reason = fmt.Sprintf("provider answered %d", resp.StatusCode)
	}
	if secs, err := strconv.Atoi(strings.TrimSpace(resp.Header.Get("Retry-After"))); err == nil && secs > 0 {
		e.RetryAfter = time.Duration(secs) * time.Second
	}
	return e
}
