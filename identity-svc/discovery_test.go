package identity_test

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
	"time"

	identity "github.com/paylane/paylane/identity-svc"
	"github.com/paylane/paylane/identity-svc/internal/testenv"
)

// agent is a stand-in Consul agent: it speaks /v1/agent/service/register
// and /v1/agent/service/deregister/<id> and records what it was told.
type agent struct {
	srv  *httptest.Server
	fail bool // answer registrations 500

	mu           sync.Mutex
	registered   []registration
	deregistered []string
	tokens       []string
}

// registration is the part of Consul's AgentServiceRegistration checked here.
type registration struct {
	ID, Name, Address string
	Port              int
	Check             struct{ HTTP, Interval string }
}

func newAgent(t *testing.T, fail bool) *agent {
	t.Helper()
	a := &agent{fail: fail}
	mux := http.NewServeMux()
	mux.HandleFunc("PUT /v1/agent/service/register", func(w http.ResponseWriter, r *http.Request) {
		var reg registration
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
	a.srv = httptest.NewServer(mux)
	t.Cleanup(a.srv.Close)
	return a
}

func (a *agent) state() ([]registration, []string, []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]registration(nil), a.registered...), append([]string(nil), a.deregistered...), append([]string(nil), a.tokens...)
}

// consulConfig is a runnable configuration whose Registrar comes from
// ConfigFromEnv with CONSUL_HTTP_ADDR pointing at a.
func consulConfig(t *testing.T, a *agent) identity.Config {
	t.Helper()
	t.Setenv("CONSUL_HTTP_ADDR", a.srv.URL)
	t.Setenv("CONSUL_HTTP_TOKEN", "acl-token")
	env, err := identity.ConfigFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if env.Registrar == nil {
		t.Fatal("ConfigFromEnv with CONSUL_HTTP_ADDR set: no Registrar")
	}
	db := testenv.NewDB(t)
	_, seed := testenv.Signer(t)
	return identity.Config{
		HTTPAddr: "127.0.0.1:0", InternalAddr: "127.0.0.1:0", DatabaseURL: db.AppDSN, DBMaxConns: 2,
		SigningKey: seed, AdminToken: testenv.AdminToken, InternalTokenTTL: time.Minute,
		Registrar: env.Registrar, AdvertiseHost: "127.0.0.1",
	}
}

func TestRunRegistersWithConsulAndDeregistersAtStop(t *testing.T) {
	a := newAgent(t, false)
	cfg := consulConfig(t, a)
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan identity.Addrs, 1)
	cfg.Ready = func(addrs identity.Addrs) { ready <- addrs }
	done := make(chan error, 1)
	go func() { done <- identity.Run(ctx, cfg) }()
	var addrs identity.Addrs
	select {
	case addrs = <-ready:
	case err := <-done:
		t.Fatalf("Run stopped early: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run after cancel = %v", err)
	}

	registered, deregistered, tokens := a.state()
	if len(registered) != 1 {
		t.Fatalf("registrations = %+v, want one", registered)
	}
	reg := registered[0]
	_, httpPort, _ := net.SplitHostPort(addrs.HTTP)
	_, internalPort, _ := net.SplitHostPort(addrs.Internal)
	if reg.Name != "identity-svc" || reg.Address != "127.0.0.1" || httpPort != strconv.Itoa(reg.Port) ||
		reg.Check.HTTP != "http://127.0.0.1:"+internalPort+"/readyz" {
		t.Errorf("registration = %+v, want identity-svc at %s with the check on %s", reg, addrs.HTTP, addrs.Internal)
	}
	if len(deregistered) != 1 || deregistered[0] != reg.ID || reg.ID == "" {
		t.Errorf("deregistered %v, want [%s]", deregistered, reg.ID)
	}
	if len(tokens) != 1 || tokens[0] != "acl-token" {
		t.Errorf("ACL tokens sent = %v, want CONSUL_HTTP_TOKEN", tokens)
	}
}

func TestRunFailsWhenRegistrationFails(t *testing.T) {
	a := newAgent(t, true)
	cfg := consulConfig(t, a)
	err := identity.Run(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "registering") {
		t.Fatalf("Run with a failing agent = %v, want a registration error", err)
	}
	if _, deregistered, _ := a.state(); len(deregistered) != 0 {
		t.Errorf("deregistered %v after a failed registration", deregistered)
	}
}

func TestConfigFromEnvWithoutConsulRegistersNowhere(t *testing.T) {
	t.Setenv("CONSUL_HTTP_ADDR", "")
	cfg, err := identity.ConfigFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Registrar != nil {
		t.Errorf("Registrar = %T without CONSUL_HTTP_ADDR, want nil", cfg.Registrar)
	}
}
