// Package svcrun is the lifecycle every service shares: migrate with the
// owner role, listen on the HTTP and internal addresses, run background
// workers, and stop in order when the context ends or a part fails — the
// HTTP listener drains first, then the internal listener and the workers
// end with the context.
package svcrun

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/libs/pgdb"
)

// DefaultShutdownTimeout bounds the drain of the HTTP listener.
const DefaultShutdownTimeout = 10 * time.Second

// Migrate applies sets with the owner DSN and grants the app role (the user
// of appDSN) its DML rights.
func Migrate(ctx context.Context, ownerDSN, appDSN string, sets ...pgdb.MigrationSet) error {
	if ownerDSN == "" || appDSN == "" {
		return errors.New("migrating needs MIGRATE_DATABASE_URL and DATABASE_URL")
	}
	if err := pgdb.Migrate(ctx, ownerDSN, pgdb.AppRole(appDSN), sets...); err != nil {
		return fmt.Errorf("migrating: %w", err)
	}
	return nil
}

// Options describe what Start serves.
type Options struct {
	// Name labels the service's log lines ("contacts-svc").
	Name string
	// HTTPAddr and InternalAddr are the listen addresses (port 0 picks one).
	HTTPAddr, InternalAddr string
	// HTTPListener, when set, is served instead of listening on HTTPAddr
	// (see Listen).
	HTTPListener net.Listener
	// Web serves HTTPAddr.
	Web *fiber.App
	// Registry is exposed at the internal listener's /metrics.
	Registry *prometheus.Registry
	// Tracing is the service's tracer provider (obs.NewTracing): workers
	// find it, with Name and Registry, as the obs.Telemetry of Context, and
	// it is flushed and stopped once the workers have ended. Nil: trace ids
	// only, nothing exported.
	Tracing *obs.Tracing
	// Ready answers /readyz (nil: always ready).
	Ready func(context.Context) error
	// Log receives the lifecycle lines; nil discards.
	Log *slog.Logger
	// ShutdownTimeout bounds the HTTP drain (DefaultShutdownTimeout when 0).
	ShutdownTimeout time.Duration
}

// Service is a started service. Its context ends when the parent's does or
// when Wait begins to stop it.
type Service struct {
	opts         Options
	ctx          context.Context
	cancel       context.CancelFunc
	ln           net.Listener
	internal     net.Addr
	httpDone     chan error
	internalDone <-chan error
	failed       chan error
	workers      sync.WaitGroup
	beforeDrain  []func()
}

// Start listens on both addresses and serves them. The returned service's
// Context is what workers run under.
func Start(ctx context.Context, o Options) (*Service, error) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.ShutdownTimeout == 0 {
		o.ShutdownTimeout = DefaultShutdownTimeout
	}
	ln, err := Listen(o.HTTPListener, o.HTTPAddr)
	if err != nil {
		return nil, err
	}
	s := &Service{opts: o, ln: ln, httpDone: make(chan error, 1), failed: make(chan error, 1)}
	tel := obs.Telemetry{Service: o.Name, Tracing: o.Tracing}
	if o.Registry != nil { // a nil *Registry in the interface would not read as nil
		tel.Registry = o.Registry
	}
	s.ctx, s.cancel = context.WithCancel(obs.WithTelemetry(ctx, tel))
	go func() { s.httpDone <- o.Web.Listener(ln) }()
	s.internal, s.internalDone, err = obs.ServeInternal(s.ctx, o.InternalAddr, o.Registry, o.Ready, o.Log)
	if err != nil {
		s.cancel()
		_ = o.Web.Shutdown()
		_ = ln.Close()
		return nil, fmt.Errorf("serving internal listener: %w", err)
	}
	return s, nil
}

// Listen returns ln when a caller bound the listener already, and otherwise
// listens on addr. A caller that must know a service's address before the
// service starts (the devstack tells every service every other's URL) binds
// it first and hands it over: an address picked and released could be taken
// by another listener before the service binds it.
func Listen(ln net.Listener, addr string) (net.Listener, error) {
	if ln != nil {
		return ln, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", addr, err)
	}
	return ln, nil
}

// Context is the service's context: workers stop when it ends.
func (s *Service) Context() context.Context { return s.ctx }

// HTTPAddr is the bound HTTP address.
func (s *Service) HTTPAddr() string { return s.ln.Addr().String() }

// InternalAddr is the bound internal address.
func (s *Service) InternalAddr() string { return s.internal.String() }

// Go runs a worker under the service's context. A worker that fails while
// the context is live stops the service with that error (named by name).
func (s *Service) Go(name string, fn func(context.Context) error) {
	s.workers.Go(func() {
		if err := fn(s.ctx); err != nil && s.ctx.Err() == nil {
			select {
			case s.failed <- fmt.Errorf("%s: %w", name, err):
			default: // another part already stopped the service
			}
		}
	})
}

// Loop runs a worker that only ends with the context (periodic cleanups).
func (s *Service) Loop(fn func(context.Context)) {
	s.workers.Go(func() { fn(s.ctx) })
}

// BeforeDrain registers fn to run when the service stops, before the HTTP
// listener drains (leaving a service registry, so no new traffic comes).
func (s *Service) BeforeDrain(fn func()) { s.beforeDrain = append(s.beforeDrain, fn) }

// Wait blocks until the context ends or a listener or worker fails, then
// stops the service (Stop) and returns the failure, or nil.
func (s *Service) Wait() error {
	var cause error
	internalStopped := false
	select {
	case <-s.ctx.Done():
	case err := <-s.httpDone:
		cause = fmt.Errorf("http listener stopped: %w", err)
	case err := <-s.internalDone:
		internalStopped = true
		cause = fmt.Errorf("internal listener stopped: %w", err)
	case cause = <-s.failed:
	}
	s.stop(internalStopped)
	return cause
}

// Stop stops the service without waiting for a cause (a start step after
// Start failed) and returns err.
func (s *Service) Stop(err error) error {
	s.stop(false)
	return err
}

func (s *Service) stop(internalStopped bool) {
	for _, fn := range s.beforeDrain {
		fn()
	}
	s.cancel()
	log := s.opts.Log
	if err := s.opts.Web.ShutdownWithTimeout(s.opts.ShutdownTimeout); err != nil {
		log.Warn("http shutdown", "error", err)
	}
	// Fiber's shutdown closes only a listener it already serves: right
	// after Start the server may not have taken ln yet.
	_ = s.ln.Close()
	if !internalStopped {
		if err := <-s.internalDone; err != nil {
			log.Warn("internal shutdown", "error", err)
		}
	}
	s.workers.Wait()
	if err := s.opts.Tracing.Shutdown(s.ctx); err != nil {
		log.Warn("tracing shutdown", "error", err)
	}
	log.Info(s.opts.Name + " stopped")
}
