package discovery

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/consul/api"
)

func TestRegisterAndDeregister(t *testing.T) {
	t.Parallel()
	f := newFakeConsul(t)
	c := newTestConsul(t, f)
	reg := Registration{
		Name:     "identity-svc",
		Address:  "10.0.0.5",
		Port:     8080,
		Tags:     []string{"paylane"},
		CheckURL: "http://10.0.0.5:9090/readyz",
	}

	deregister, err := Announce(t.Context(), c, reg)
	if err != nil {
		t.Fatalf("Announce: %v", err)
	}
	want := map[string]api.AgentServiceRegistration{
		"identity-svc-10.0.0.5-8080": {
			ID: "identity-svc-10.0.0.5-8080", Name: "identity-svc", Address: "10.0.0.5", Port: 8080,
			Tags: []string{"paylane"},
			Check: &api.AgentServiceCheck{
				HTTP: "http://10.0.0.5:9090/readyz", Method: "GET", Interval: "10s", Timeout: "2s",
				DeregisterCriticalServiceAfter: "1m0s",
			},
		},
	}
	if diff := cmp.Diff(want, f.snapshotRegistered()); diff != "" {
		t.Errorf("registered (-want +got):\n%s", diff)
	}

	if err := deregister(t.Context()); err != nil {
		t.Fatalf("deregister: %v", err)
	}
	if got := f.snapshotRegistered(); len(got) != 0 {
		t.Errorf("after deregister the agent still holds %v", got)
	}
	if err := c.Deregister(t.Context(), "identity-svc-10.0.0.5-8080"); err == nil {
		t.Error("deregistering an unknown id succeeded, want the agent's 404")
	}
}

func TestRegisterRejectsIncompleteRegistrations(t *testing.T) {
	t.Parallel()
	valid := Registration{Name: "gateway", Address: "10.0.0.1", Port: 8443, CheckURL: "http://10.0.0.1:9090/readyz"}
	tests := []struct {
		name   string
		mutate func(*Registration)
	}{
		{"no name", func(r *Registration) { r.Name = "" }},
		{"no address", func(r *Registration) { r.Address = "" }},
		{"port zero", func(r *Registration) { r.Port = 0 }},
		{"port too big", func(r *Registration) { r.Port = 70000 }},
		{"no health check", func(r *Registration) { r.CheckURL = "" }},
	}
	f := newFakeConsul(t)
	c := newTestConsul(t, f)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := valid
			tt.mutate(&reg)
			if err := c.Register(t.Context(), reg); err == nil {
				t.Error("Register succeeded, want a validation error")
			}
		})
	}
	if got := f.snapshotRegistered(); len(got) != 0 {
		t.Errorf("invalid registrations reached the agent: %v", got)
	}
}

func TestRegisterCustomIDAndCheckTimings(t *testing.T) {
	t.Parallel()
	f := newFakeConsul(t)
	c := newTestConsul(t, f)
	reg := Registration{
		ID: "gw-1", Name: "gateway", Address: "gw.local", Port: 8443,
		Meta: map[string]string{"version": "1"}, CheckURL: "http://gw.local:9090/readyz",
		CheckInterval: 3e9, CheckTimeout: 1e9, DeregisterAfter: 3e11,
	}
	if err := c.Register(t.Context(), reg); err != nil {
		t.Fatalf("Register: %v", err)
	}
	got, ok := f.snapshotRegistered()["gw-1"]
	if !ok {
		t.Fatalf("gw-1 not registered: %v", f.snapshotRegistered())
	}
	want := api.AgentServiceCheck{HTTP: "http://gw.local:9090/readyz", Method: "GET", Interval: "3s", Timeout: "1s", DeregisterCriticalServiceAfter: "5m0s"}
	if diff := cmp.Diff(want, *got.Check); diff != "" {
		t.Errorf("check (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"version": "1"}, got.Meta); diff != "" {
		t.Errorf("meta (-want +got):\n%s", diff)
	}
}

func TestNoopRegistrar(t *testing.T) {
	t.Parallel()
	deregister, err := Announce(t.Context(), NoopRegistrar{}, Registration{Name: "gateway"})
	if err != nil {
		t.Fatalf("Announce: %v", err)
	}
	if err := deregister(t.Context()); err != nil {
		t.Errorf("deregister: %v", err)
	}
}

func TestNewRegistration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                     string
		host, httpAddr, internal string
		want                     Registration
		wantErr                  bool
	}{
		{
			name: "compose defaults", host: "identity-svc", httpAddr: ":8080", internal: ":9090",
			want: Registration{Name: "identity-svc", Address: "identity-svc", Port: 8080, Tags: []string{"paylane"}, CheckURL: "http://identity-svc:9090/readyz"},
		},
		{
			name: "ipv6 host", host: "fd00::5", httpAddr: "0.0.0.0:8443", internal: "[::]:9191",
			want: Registration{Name: "identity-svc", Address: "fd00::5", Port: 8443, Tags: []string{"paylane"}, CheckURL: "http://[fd00::5]:9191/readyz"},
		},
		{name: "port zero", host: "h", httpAddr: ":0", internal: ":9090", wantErr: true},
		{name: "no port", host: "h", httpAddr: "8080", internal: ":9090", wantErr: true},
		{name: "bad internal", host: "h", httpAddr: ":8080", internal: ":x", wantErr: true},
		{name: "no host", host: "", httpAddr: ":8080", internal: ":9090", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := NewRegistration("identity-svc", tt.host, tt.httpAddr, tt.internal)
			if (err != nil) != tt.wantErr {
				t.Fatalf("NewRegistration error = %v, want error %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("registration (-want +got):\n%s", diff)
			}
		})
	}
}
