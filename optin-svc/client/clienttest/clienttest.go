// Package clienttest is a fake optin-svc for the tests of the services that
// call it through optin-svc/client (contacts-svc): a
// real HTTP server answering the route optin-svc/client calls
// (GET /internal/v1/contacts/{contact}/opt-in?phone=) from standings the
// test sets, and counting the calls, so a test can tell a cached answer
// from a fresh one. The tenant is the tenant_id claim of the bearer token,
// read without verifying it, or the whole token when it is no JWT (unit
// tests pass the tenant id as the token).
package clienttest

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Server is the stand-in optin-svc.
type Server struct {
	URL string

	mu       sync.Mutex
	standing map[key]Standing
	calls    map[key]int
	failures int
	hold     chan struct{}
	held     chan struct{}
}

type key struct{ tenant, contact string }

// Standing is what the server answers for a contact: its status and the
// ids and statuses of its consents.
type Standing struct {
	Status   string
	Consents []Consent
}

// Consent is one consent in an answer.
type Consent struct {
	ID, Status string
}

// Start runs a server until the test ends. Contacts without a standing
// read as "none" with no consents.
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{standing: map[key]Standing{}, calls: map[key]int{}}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// Set makes the server answer st for tenant's contact.
func (s *Server) Set(tenant, contact string, st Standing) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.standing[key{tenant, contact}] = st
}

// Calls is how many requests asked for tenant's contact.
func (s *Server) Calls(tenant, contact string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[key{tenant, contact}]
}

// FailNext makes the next n requests fail with 503 service_unavailable.
func (s *Server) FailNext(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures = n
}

// HoldNext makes the next request wait, after reading the standing it
// will answer, until release is called; held is closed once it waits.
func (s *Server) HoldNext() (held <-chan struct{}, release func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	hold := make(chan struct{})
	s.hold, s.held = hold, make(chan struct{})
	return s.held, sync.OnceFunc(func() { close(hold) })
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	contact, ok := strings.CutPrefix(r.URL.Path, "/internal/v1/contacts/")
	contact, ok2 := strings.CutSuffix(contact, "/opt-in")
	if r.Method != http.MethodGet || !ok || !ok2 {
		http.NotFound(w, r)
		return
	}
	k := key{tenantOf(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")), contact}
	s.mu.Lock()
	s.calls[k]++
	st, fail := s.standing[k], s.failures > 0
	if fail {
		s.failures--
	}
	hold, held := s.hold, s.held
	s.hold, s.held = nil, nil
	s.mu.Unlock()
	if hold != nil {
		close(held)
		<-hold
	}
	w.Header().Set("Content-Type", "application/json")
	if fail {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"error":{"code":"service_unavailable","message":"try again"}}`))
		return
	}
	if st.Status == "" {
		st.Status = "none"
	}
	type consentJSON struct {
		ID          string    `json:"id"`
		ContactID   string    `json:"contact_id"`
		Status      string    `json:"status"`
		Channel     string    `json:"channel"`
		ConsentedAt time.Time `json:"consented_at"`
		CreatedAt   time.Time `json:"created_at"`
	}
	consents := []consentJSON{}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, c := range st.Consents {
		consents = append(consents, consentJSON{ID: c.ID, ContactID: contact, Status: c.Status, Channel: "sms",
			ConsentedAt: at, CreatedAt: at})
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"status": st.Status, "consents": consents}})
}

// tenantOf reads the tenant of a token (see the package comment).
func tenantOf(token string) string {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return token
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return token
	}
	var claims struct {
		TenantID string `json:"tenant_id"`
	}
	if json.Unmarshal(payload, &claims) != nil {
		return token
	}
	return claims.TenantID
}
