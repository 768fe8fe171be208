package main

import (
	"crypto/tls"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// receiver is a local HTTPS webhook receiver (certificate of the devstack
// CA, which webhook-svc trusts; loopback is on the devstack's allow-list).
// It records each delivery's webhook-id; with fail set it answers 500.
type receiver struct {
	url  string
	srv  *http.Server
	fail atomic.Bool

	mu       sync.Mutex
	ids      map[string]int // webhook-id → deliveries answered 2xx
	attempts []time.Time    // every request, in arrival order
	byID     map[string][]time.Time
	bodyIDs  map[string]bool
}

func newReceiver(tlsDir string) (*receiver, error) {
	cert, err := tls.LoadX509KeyPair(filepath.Join(tlsDir, "gateway.pem"), filepath.Join(tlsDir, "gateway-key.pem"))
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &receiver{ids: map[string]int{}, bodyIDs: map[string]bool{}, byID: map[string][]time.Time{}}
	r.srv = &http.Server{Handler: http.HandlerFunc(r.handle), ReadHeaderTimeout: 5 * time.Second,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}}
	go func() { _ = r.srv.ServeTLS(ln, "", "") }()
	r.url = "https://" + ln.Addr().String() + "/hooks"
	return r, nil
}

func (r *receiver) handle(w http.ResponseWriter, req *http.Request) {
	raw, _ := io.ReadAll(req.Body)
	var body struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(raw, &body)
	r.mu.Lock()
	now := time.Now()
	r.attempts = append(r.attempts, now)
	r.byID[req.Header.Get("webhook-id")] = append(r.byID[req.Header.Get("webhook-id")], now)
	fail := r.fail.Load()
	if !fail {
		r.ids[req.Header.Get("webhook-id")]++
		if body.ID != req.Header.Get("webhook-id") {
			r.bodyIDs[body.ID+"≠"+req.Header.Get("webhook-id")] = true
		}
	}
	r.mu.Unlock()
	if fail {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// delivered reports whether the event id was delivered (answered 2xx).
func (r *receiver) delivered(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ids[id] > 0
}

// mismatched counts deliveries whose body id differs from webhook-id.
func (r *receiver) mismatched() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.bodyIDs)
}

// attemptTimes returns the arrival time of every request so far.
func (r *receiver) attemptTimes() []time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Time(nil), r.attempts...)
}

// attemptsByID returns the arrival times of each webhook-id's requests.
func (r *receiver) attemptsByID() map[string][]time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string][]time.Time, len(r.byID))
	for id, ts := range r.byID {
		out[id] = append([]time.Time(nil), ts...)
	}
	return out
}

func (r *receiver) close() { _ = r.srv.Close() }
