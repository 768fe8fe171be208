package devstack

import (
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// TestWebhookEndToEnd drives the stack as an integrator would: register a
// local HTTPS receiver (its certificate issued by the devstack CA, which
// webhook-svc trusts; loopback is on the devstack's allow-list), create a
// contact, and receive contact.created signed so that the Standard Webhooks
// library verifies it; the deliveries list shows the attempt.
func TestWebhookEndToEnd(t *testing.T) {
	root := tempRoot(t)
	stack := startStack(t, root)
	var e *e2e
	defer func() {
		// Idle client connections first, or the gateway's drain waits for them.
		if e != nil {
			e.hc.CloseIdleConnections()
		}
		stack.stop(t)
	}()
	e = newE2E(t, stack.info)
	rc := newWHReceiver(t, filepath.Join(stack.info.Root, "tls"))

	var ep struct {
		Data struct {
			ID            string `json:"id"`
			SigningSecret string `json:"signing_secret"`
		} `json:"data"`
	}
	r := e.whSend(t, http.MethodPost, "/api/v1/webhook-endpoints", map[string]any{
		"name": "local receiver", "url": rc.url, "subscribed_events": []string{"contact.*"},
	})
	e.expectStatus(t, r, http.StatusCreated)
	whDecode(t, r.body, &ep)

	var contact struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	r = e.whSend(t, http.MethodPost, "/api/v1/contacts", map[string]any{
		"first_name": "Ada", "last_name": "Lovelace", "phone": "+14155550142",
	})
	e.expectStatus(t, r, http.StatusCreated)
	whDecode(t, r.body, &contact)

	got := rc.waitFor(t, func(b whBody) bool { return b.Type == "contact.created" && b.Data.ID == contact.Data.ID })
	wh, err := standardwebhooks.NewWebhook(ep.Data.SigningSecret)
	if err != nil {
		t.Fatal(err)
	}
	if err := wh.Verify(got.raw, got.header); err != nil {
		t.Fatalf("the Standard Webhooks library rejects the delivery: %v", err)
	}
	if got.header.Get("webhook-id") != got.body.ID {
		t.Errorf("webhook-id %q, body id %q: want the event id in both", got.header.Get("webhook-id"), got.body.ID)
	}

	var deliveries struct {
		Data []struct {
			EventID      string `json:"event_id"`
			EventType    string `json:"event_type"`
			Status       string `json:"status"`
			AttemptCount int    `json:"attempt_count"`
			Attempts     []struct {
				Status         string `json:"status"`
				ResponseStatus int    `json:"response_status"`
			} `json:"attempts"`
		} `json:"data"`
	}
	whWaitUntil(t, func() bool {
		r := e.get(t, "/api/v1/webhook-endpoints/"+ep.Data.ID+"/deliveries", e.info.DemoToken)
		e.expectStatus(t, r, http.StatusOK)
		whDecode(t, r.body, &deliveries)
		return len(deliveries.Data) > 0 && deliveries.Data[0].Status == "succeeded"
	})
	d := deliveries.Data[0]
	if d.EventID != got.body.ID || d.EventType != "contact.created" || d.AttemptCount != 1 ||
		len(d.Attempts) != 1 || d.Attempts[0].Status != "succeeded" || d.Attempts[0].ResponseStatus != http.StatusOK {
		t.Errorf("delivery row %+v, want contact.created succeeded on its one attempt", d)
	}
}

// send is a JSON request with the demo token.
func (e *e2e) whSend(t *testing.T, method, path string, body any) response {
	t.Helper()
	return e.send(t, method, path, e.info.DemoToken, body, nil)
}

func whDecode(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
}

type whBody struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	Data struct {
		ID string `json:"id"`
	} `json:"data"`
}

type whReceived struct {
	header http.Header
	raw    []byte
	body   whBody
}

// whReceiver is a local HTTPS webhook receiver serving the devstack's
// localhost certificate (issued by its CA).
type whReceiver struct {
	url string
	mu  sync.Mutex
	got []whReceived
}

func newWHReceiver(t *testing.T, tlsDir string) *whReceiver {
	t.Helper()
	cert, err := tls.LoadX509KeyPair(filepath.Join(tlsDir, "gateway.pem"), filepath.Join(tlsDir, "gateway-key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	rc := &whReceiver{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var b whBody
		_ = json.Unmarshal(raw, &b)
		rc.mu.Lock()
		rc.got = append(rc.got, whReceived{header: r.Header.Clone(), raw: raw, body: b})
		rc.mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	rc.url = srv.URL + "/paylane-hooks"
	return rc
}

// waitFor returns the first request match accepts, waiting for it.
func (rc *whReceiver) waitFor(t *testing.T, match func(whBody) bool) whReceived {
	t.Helper()
	var found *whReceived
	whWaitUntil(t, func() bool {
		rc.mu.Lock()
		defer rc.mu.Unlock()
		for i := range rc.got {
			if match(rc.got[i].body) {
				found = &rc.got[i]
				return true
			}
		}
		return false
	})
	return *found
}

// waitUntil polls cond, failing after a generous bound (a hang, not a
// timing assertion).
func whWaitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("condition not met within 60 s")
}
