package discovery

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/hashicorp/consul/api"
)

// Registration describes one instance of the running service.
type Registration struct {
	// ID is unique per instance; empty means Name-Address-Port.
	ID      string
	Name    string
	Address string
	Port    int
	Tags    []string
	Meta    map[string]string
	// CheckURL is polled by the agent (the internal listener's /readyz).
	CheckURL string
	// CheckInterval defaults to 10 s, CheckTimeout to 2 s.
	CheckInterval, CheckTimeout time.Duration
	// DeregisterAfter removes an instance whose check stays critical this
	// long (default 1 min), so a crashed process does not linger.
	DeregisterAfter time.Duration
}

// ServiceID is the instance id used by Register and Deregister.
func (r Registration) ServiceID() string {
	if r.ID != "" {
		return r.ID
	}
	return r.Name + "-" + r.Address + "-" + strconv.Itoa(r.Port)
}

func (r Registration) validate() error {
	var errs []error
	if r.Name == "" {
		errs = append(errs, errors.New("name is empty"))
	}
	if r.Address == "" {
		errs = append(errs, errors.New("address is empty"))
	}
	if r.Port <= 0 || r.Port > 65535 {
		errs = append(errs, fmt.Errorf("port %d out of range", r.Port))
	}
	if r.CheckURL == "" {
		errs = append(errs, errors.New("check url is empty"))
	}
	return errors.Join(errs...)
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// Register implements Registrar: it registers the instance with the local
// Consul agent together with an HTTP health check.
func (c *Consul) Register(ctx context.Context, reg Registration) error {
	if err := reg.validate(); err != nil {
		return fmt.Errorf("registering %q: %w", reg.Name, err)
	}
	svc := &api.AgentServiceRegistration{
		ID:      reg.ServiceID(),
		Name:    reg.Name,
		Address: reg.Address,
		Port:    reg.Port,
		Tags:    reg.Tags,
		Meta:    reg.Meta,
		Check: &api.AgentServiceCheck{
			HTTP:                           reg.CheckURL,
			Method:                         "GET",
			Interval:                       orDefault(reg.CheckInterval, 10*time.Second).String(),
			Timeout:                        orDefault(reg.CheckTimeout, 2*time.Second).String(),
			DeregisterCriticalServiceAfter: orDefault(reg.DeregisterAfter, time.Minute).String(),
		},
	}
	opts := api.ServiceRegisterOpts{ReplaceExistingChecks: true}.WithContext(ctx)
	if err := c.client.Agent().ServiceRegisterOpts(svc, opts); err != nil {
		return fmt.Errorf("registering %q with consul: %w", svc.ID, err)
	}
	return nil
}

// Deregister implements Registrar: it removes the instance from the agent.
func (c *Consul) Deregister(ctx context.Context, serviceID string) error {
	if err := c.client.Agent().ServiceDeregisterOpts(serviceID, (&api.QueryOptions{}).WithContext(ctx)); err != nil {
		return fmt.Errorf("deregistering %q from consul: %w", serviceID, err)
	}
	return nil
}

// NoopRegistrar is the Registrar without a registry (Kubernetes: the Service
// object is the registration, readiness probes the health check).
type NoopRegistrar struct{}

// Register implements Registrar and does nothing.
func (NoopRegistrar) Register(context.Context, Registration) error { return nil }

// Deregister implements Registrar and does nothing.
func (NoopRegistrar) Deregister(context.Context, string) error { return nil }

// Announce registers reg and returns the function that deregisters it, to
// be called during graceful shutdown (with a fresh context: the service's
// own is already cancelled by then).
func Announce(ctx context.Context, r Registrar, reg Registration) (func(context.Context) error, error) {
	if err := r.Register(ctx, reg); err != nil {
		return nil, err
	}
	id := reg.ServiceID()
	return func(ctx context.Context) error { return r.Deregister(ctx, id) }, nil
}

// NewRegistration describes this instance of service for Register: host is
// the address other instances reach it at (os.Hostname() in Compose, the
// machine's address elsewhere); httpAddr and internalAddr are the service's
// listen addresses (":8080", ":9090"), whose ports are announced and polled
// (the check is GET http://host:<internal port>/readyz).
func NewRegistration(service, host, httpAddr, internalAddr string) (Registration, error) {
	port, err := portOf(httpAddr)
	if err != nil {
		return Registration{}, fmt.Errorf("registration of %q: http address: %w", service, err)
	}
	internal, err := portOf(internalAddr)
	if err != nil {
		return Registration{}, fmt.Errorf("registration of %q: internal address: %w", service, err)
	}
	reg := Registration{
		Name:     service,
		Address:  host,
		Port:     port,
		Tags:     []string{"paylane"},
		CheckURL: "http://" + net.JoinHostPort(host, strconv.Itoa(internal)) + "/readyz",
	}
	return reg, reg.validate()
}

func portOf(addr string) (int, error) {
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		return 0, fmt.Errorf("%q: %w", addr, err)
	}
	port, err := strconv.Atoi(p)
	if err != nil || port <= 0 || port > 65535 {
		return 0, fmt.Errorf("%q: port must be 1-65535", addr)
	}
	return port, nil
}
