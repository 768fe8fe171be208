package discovery

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/consul/api"
)

// fakeConsul speaks the part of Consul's HTTP API that discovery uses:
// /v1/health/service/<name> (passing filter, blocking queries with index and
// wait, X-Consul-Index) and /v1/agent/service/register and /deregister/<id>.
type fakeConsul struct {
	t   testing.TB
	srv *httptest.Server

	mu         sync.Mutex
	index      uint64
	changed    chan struct{} // closed and replaced on every change
	instances  map[string][]fakeInstance
	registered map[string]api.AgentServiceRegistration
	failing    bool
	queries    []fakeQuery
	tokens     []string
	parked     chan string // receives the service name of each parked blocking query
	failed     chan string // receives the service name of each query answered 500
}

type fakeInstance struct {
	Address string
	Port    int
	Passing bool
}

type fakeQuery struct {
	Service string
	Index   uint64
	Passing bool
}

func newFakeConsul(t testing.TB) *fakeConsul {
	t.Helper()
	f := &fakeConsul{
		t:          t,
		index:      10,
		changed:    make(chan struct{}),
		instances:  map[string][]fakeInstance{},
		registered: map[string]api.AgentServiceRegistration{},
		parked:     make(chan string, 100),
		failed:     make(chan string, 100),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/health/service/{name}", f.health)
	mux.HandleFunc("PUT /v1/agent/service/register", f.register)
	mux.HandleFunc("PUT /v1/agent/service/deregister/{id}", f.deregister)
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

// set replaces a service's instances and bumps the index, waking blocked queries.
func (f *fakeConsul) set(service string, instances ...fakeInstance) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.instances[service] = instances
	f.bumpLocked()
}

func (f *fakeConsul) bumpLocked() {
	f.index++
	close(f.changed)
	f.changed = make(chan struct{})
}

// setFailing makes the health endpoint answer 500 (and wakes blocked queries).
func (f *fakeConsul) setFailing(failing bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failing = failing
	f.bumpLocked()
}

// resetIndex makes the index go backwards, as after a Consul server restore.
func (f *fakeConsul) resetIndex(to uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.index = to
	close(f.changed)
	f.changed = make(chan struct{})
}

func (f *fakeConsul) health(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	q := r.URL.Query()
	index, _ := strconv.ParseUint(q.Get("index"), 10, 64)
	_, passing := q["passing"]
	wait, err := time.ParseDuration(q.Get("wait"))
	if err != nil {
		wait = 5 * time.Minute
	}
	f.mu.Lock()
	f.queries = append(f.queries, fakeQuery{Service: name, Index: index, Passing: passing})
	f.tokens = append(f.tokens, r.Header.Get("X-Consul-Token"))
	if index > 0 && index == f.index {
		changed := f.changed
		f.mu.Unlock()
		select {
		case f.parked <- name:
		default:
		}
		select {
		case <-changed:
		case <-r.Context().Done():
			return
		case <-time.After(wait):
		}
		f.mu.Lock()
	}
	defer f.mu.Unlock()
	if f.failing {
		select {
		case f.failed <- name:
		default:
		}
		http.Error(w, "rpc error: no leader", http.StatusInternalServerError)
		return
	}
	entries := []*api.ServiceEntry{}
	for i, in := range f.instances[name] {
		if passing && !in.Passing {
			continue
		}
		status := api.HealthPassing
		if !in.Passing {
			status = api.HealthCritical
		}
		entries = append(entries, &api.ServiceEntry{
			Node:    &api.Node{Node: "node-" + strconv.Itoa(i), Address: "10.9.9." + strconv.Itoa(i)},
			Service: &api.AgentService{ID: name + "-" + strconv.Itoa(i), Service: name, Address: in.Address, Port: in.Port},
			Checks:  api.HealthChecks{{Status: status, ServiceName: name}},
		})
	}
	w.Header().Set("X-Consul-Index", strconv.FormatUint(f.index, 10))
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(entries); err != nil {
		f.t.Errorf("fake consul: encoding: %v", err)
	}
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

func (f *fakeConsul) snapshotQueries() []fakeQuery {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeQuery(nil), f.queries...)
}

func (f *fakeConsul) snapshotRegistered() map[string]api.AgentServiceRegistration {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[string]api.AgentServiceRegistration, len(f.registered))
	for k, v := range f.registered {
		out[k] = v
	}
	return out
}

func (f *fakeConsul) snapshotTokens() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.tokens...)
}

// waitFor reads ch until it carries service: a query for it was parked (or failed).
func waitFor(t testing.TB, ch <-chan string, service string) {
	t.Helper()
	guard := time.NewTimer(time.Minute) // a hang guard, not a timing assertion
	defer guard.Stop()
	for {
		select {
		case got := <-ch:
			if got == service {
				return
			}
		case <-guard.C:
			t.Fatalf("no query for %q reached the fake consul", service)
		}
	}
}
