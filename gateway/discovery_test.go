package gateway_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/paylane/paylane/gateway"
	"github.com/paylane/paylane/libs/svcrun"
)

// consulAgent is a stand-in Consul agent: it speaks
// /v1/agent/service/register and /v1/agent/service/deregister/<id> and
// records what it was told.
type consulAgent struct {
	url  string
	fail bool // answer registrations 500

	mu           sync.Mutex
	registered   []agentRegistration
	deregistered []string
	tokens       []string
}

// agentRegistration is the part of Consul's AgentServiceRegistration
// checked here.
type agentRegistration struct {
	ID, Name, Address string
	Port              int
	Check             struct{ HTTP string }
}

func newConsulAgent(t *testing.T, fail bool) *consulAgent {
	t.Helper()
	a := &consulAgent{fail: fail}
	mux := http.NewServeMux()
	mux.HandleFunc("PUT /v1/agent/service/register", func(w http.ResponseWriter, r *http.Request) {
		var reg agentRegistration
		if err := json.NewDecoder(r.Body).Decode(&reg); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		a.mu.Lock()
		a.registered = append(a.registered, reg)
		a.tokens = append(a.tokens, r.Header.Get("X-Consul-Token"))
		a.mu.Unlock()
		if a.fail {
			http.Error(w, "agent unavailable", http.StatusInternalServerError)
		}
	})
	mux.HandleFunc("PUT /v1/agent/service/deregister/{id}", func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.deregistered = append(a.deregistered, r.PathValue("id"))
		a.mu.Unlock()
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	a.url = srv.URL
	return a
}

func (a *consulAgent) state() (registered []agentRegistration, deregistered, tokens []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append(registered, a.registered...), append(deregistered, a.deregistered...), append(tokens, a.tokens...)
}

// lookupOf is an environment for RegistrarFromEnv.
func lookupOf(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := env[k]; return v, ok }
}

func TestRunRegistersWithConsulAndDeregistersAtStop(t *testing.T) {
	t.Parallel()
	agent := newConsulAgent(t, false)
	registrar, err := svcrun.RegistrarFromEnv(lookupOf(map[string]string{
		"CONSUL_HTTP_ADDR": agent.url, "CONSUL_HTTP_TOKEN": "acl-token",
	}))
	if err != nil || registrar == nil {
		t.Fatalf("RegistrarFromEnv() = %v, %v; want Consul's registrar", registrar, err)
	}
	cfg := newWorld(t).config()
	cfg.Registrar, cfg.AdvertiseHost = registrar, "127.0.0.1"
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan gateway.Addrs, 1)
	done := make(chan error, 1)
	go func() {
		done <- gateway.Run(ctx, cfg, svcrun.WithReady(func(a svcrun.Addrs) { ready <- gateway.AddrsOf(a) }))
	}()
	var addrs gateway.Addrs
	select {
	case addrs = <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("Run stopped early: %v", err)
	}
	if registered, deregistered, _ := agent.state(); len(registered) != 1 || len(deregistered) != 0 {
		t.Errorf("once ready: %d registrations, %d deregistrations; want 1 and 0", len(registered), len(deregistered))
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run after cancel = %v", err)
	}

	registered, deregistered, tokens := agent.state()
	if len(registered) != 1 {
		t.Fatalf("registrations = %+v, want one", registered)
	}
	reg := registered[0]
	_, publicPort, _ := net.SplitHostPort(addrs.Public)
	_, internalPort, _ := net.SplitHostPort(addrs.Internal)
	if reg.Name != "gateway" || reg.Address != "127.0.0.1" || strconv.Itoa(reg.Port) != publicPort ||
		reg.Check.HTTP != "http://127.0.0.1:"+internalPort+"/readyz" {
		t.Errorf("registration = %+v, want the gateway at %s with the check on %s", reg, addrs.Public, addrs.Internal)
	}
	if len(deregistered) != 1 || reg.ID == "" || deregistered[0] != reg.ID {
		t.Errorf("deregistered %v, want [%s]", deregistered, reg.ID)
	}
	if len(tokens) != 1 || tokens[0] != "acl-token" {
		t.Errorf("ACL tokens sent = %v, want CONSUL_HTTP_TOKEN", tokens)
	}
}

func TestRunFailsWhenRegistrationFails(t *testing.T) {
	t.Parallel()
	agent := newConsulAgent(t, true)
	registrar, err := svcrun.RegistrarFromEnv(lookupOf(map[string]string{"CONSUL_HTTP_ADDR": agent.url}))
	if err != nil {
		t.Fatal(err)
	}
	cfg := newWorld(t).config()
	cfg.Registrar, cfg.AdvertiseHost = registrar, "127.0.0.1"
	err = gateway.Run(context.Background(), cfg, svcrun.WithReady(func(svcrun.Addrs) { t.Error("Ready called although the registration failed") }))
	if err == nil || !strings.Contains(err.Error(), "registering") {
		t.Fatalf("Run with a failing agent = %v, want a registration error", err)
	}
	if _, deregistered, _ := agent.state(); len(deregistered) != 0 {
		t.Errorf("deregistered %v after a failed registration", deregistered)
	}
}

func TestRegistrarFromEnvWithoutConsul(t *testing.T) {
	t.Parallel()
	for _, env := range []map[string]string{{}, {"CONSUL_HTTP_ADDR": ""}, {"CONSUL_HTTP_TOKEN": "x"}} {
		if r, err := svcrun.RegistrarFromEnv(lookupOf(env)); r != nil || err != nil {
			t.Errorf("RegistrarFromEnv(%v) = %v, %v; want nil, nil", env, r, err)
		}
	}
}
