package testenv

import (
	"crypto/x509"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Request is a request a Receiver got.
type Request struct {
	Header http.Header
	Body   []byte
}

// Receiver is an HTTPS webhook receiver (httptest TLS server) that records
// every request and answers with what Respond says.
type Receiver struct {
	Server *httptest.Server
	mu     sync.Mutex
	got    []Request
	// respond picks the answer to the n-th request (0-based).
	respond func(n int, w http.ResponseWriter, r Request)
}

// NewReceiver starts a receiver answering 204 unless respond says otherwise.
func NewReceiver(t testing.TB, respond func(n int, w http.ResponseWriter, r Request)) *Receiver {
	t.Helper()
	rc := &Receiver{respond: respond}
	rc.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req := Request{Header: r.Header.Clone(), Body: body}
		rc.mu.Lock()
		n := len(rc.got)
		rc.got = append(rc.got, req)
		rc.mu.Unlock()
		if rc.respond != nil {
			rc.respond(n, w, req)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rc.Server.Close)
	return rc
}

// URL is the receiver's https URL.
func (rc *Receiver) URL() string { return rc.Server.URL + "/hooks" }

// Roots trusts the receiver's certificate.
func (rc *Receiver) Roots() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(rc.Server.Certificate())
	return p
}

// Requests returns what the receiver got so far.
func (rc *Receiver) Requests() []Request {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]Request(nil), rc.got...)
}
