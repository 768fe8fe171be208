package discovery

import (
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/consul/api"
)

// fakeConsul speaks the part of Consul's HTTP API that discovery uses:
// /v1/agent/service/register and /deregister/<id>.
type fakeConsul struct {
	t   testing.TB
	srv *httptest.Server

	mu         sync.Mutex
	registered map[string]api.AgentServiceRegistration
	tokens     []string
}

func newFakeConsul(t testing.TB) *fakeConsul {
	t.Helper()
	f := &fakeConsul{t: t, registered: map[string]api.AgentServiceRegistration{}}
	mux := http.NewServeMux()
	mux.HandleFunc("PUT /v1/agent/service/register", f.register)
	mux.HandleFunc("PUT /v1/agent/service/deregister/{id}", f.deregister)
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

// newTestConsul returns a registrar talking to f.
func newTestConsul(t *testing.T, f *fakeConsul, opts ...Option) *Consul {
	t.Helper()
	c, err := NewConsul(f.srv.URL, opts...)
	if err != nil {
		t.Fatalf("NewConsul: %v", err)
	}
	return c
}

func (f *fakeConsul) register(w http.ResponseWriter, r *http.Request) {
	var reg api.AgentServiceRegistration
	if err := json.NewDecoder(r.Body).Decode(&reg); err != nil {
		http.Error(w, "bad registration: "+err.Error(), http.StatusBadRequest)
		return
	}
	if reg.Name == "" || reg.Check == nil || !strings.HasPrefix(reg.Check.HTTP, "http") {
		http.Error(w, "registration without name or http check", http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tokens = append(f.tokens, r.Header.Get("X-Consul-Token"))
	f.registered[reg.ID] = reg
}

func (f *fakeConsul) deregister(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.registered[id]; !ok {
		http.Error(w, "Unknown service ID "+strconv.Quote(id), http.StatusNotFound)
		return
	}
	delete(f.registered, id)
}

func (f *fakeConsul) snapshotRegistered() map[string]api.AgentServiceRegistration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.registered)
}

func (f *fakeConsul) snapshotTokens() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.tokens...)
}
