package svcrun

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/paylane/paylane/libs/obs"
)

// ShutdownTimeout bounds the drain of each HTTP listener.
const ShutdownTimeout = 10 * time.Second

// Addrs are the bound addresses of a started service.
type Addrs struct {
	// HTTP is the main HTTP listener, Internal the internal one.
	HTTP, Internal string
	// Servers are the further listeners by name (the gateway's "admin").
	Servers map[string]string
}

// served is a Fiber app on its bound listener.
type served struct {
	name string
	app  *fiber.App
	ln   net.Listener
}

// service is a started service. Its context ends when the parent's does or
// when it stops.
type service struct {
	name         string
	ctx          context.Context
	cancel       context.CancelFunc
	log          *slog.Logger
	servers      []served
	internal     net.Addr
	httpDone     chan error
	internalDone <-chan error
	failed       chan error
	workers      sync.WaitGroup
	beforeDrain  func()
}

// start binds every listener and serves them. A listener bound here or
// handed over is closed again when a later one cannot be bound.
func start(ctx context.Context, spec Spec, h Hooks, parts Parts, reg *prometheus.Registry) (*service, error) {
	s := &service{name: spec.Name, log: h.Logger, failed: make(chan error, 1), beforeDrain: func() {}}
	wanted := append([]Server{{Name: "http", Addr: spec.Base.HTTPAddr, App: parts.Web}}, parts.Servers...)
	handed := h.Listener
	for i, srv := range wanted {
		var ln net.Listener
		var err error
		if i == 0 && handed != nil {
			ln = handed
		} else if ln, err = net.Listen("tcp", srv.Addr); err != nil {
			s.closeListeners(handed)
			return nil, fmt.Errorf("listening on %s: %w", srv.Addr, err)
		}
		if parts.TLS != nil {
			ln = tls.NewListener(ln, parts.TLS)
		}
		s.servers = append(s.servers, served{name: srv.Name, app: srv.App, ln: ln})
	}
	s.ctx, s.cancel = context.WithCancel(ctx)
	var err error
	s.internal, s.internalDone, err = obs.ServeInternal(s.ctx, spec.Base.InternalAddr, reg, parts.Ready, h.Logger)
	if err != nil {
		s.cancel()
		s.closeListeners(handed)
		return nil, fmt.Errorf("serving internal listener: %w", err)
	}
	s.httpDone = make(chan error, len(s.servers))
	for _, srv := range s.servers {
		go func() {
			err := srv.app.Listener(srv.ln)
			if err == nil {
				err = fmt.Errorf("stopped")
			}
			s.httpDone <- fmt.Errorf("%s listener: %w", srv.name, err)
		}()
	}
	return s, nil
}

// closeListeners closes what start bound, and the handed-over listener,
// when starting fails.
func (s *service) closeListeners(handed net.Listener) {
	for _, srv := range s.servers {
		_ = srv.ln.Close()
	}
	if handed != nil {
		_ = handed.Close()
	}
}

// addrs are the bound addresses.
func (s *service) addrs() Addrs {
	a := Addrs{HTTP: s.servers[0].ln.Addr().String(), Internal: s.internal.String()}
	for _, srv := range s.servers[1:] {
		if a.Servers == nil {
			a.Servers = map[string]string{}
		}
		a.Servers[srv.name] = srv.ln.Addr().String()
	}
	return a
}

// goWorker runs w under the service's context.
func (s *service) goWorker(w Worker) {
	s.workers.Go(func() {
		if err := w.Run(s.ctx); err != nil && s.ctx.Err() == nil {
			select {
			case s.failed <- fmt.Errorf("%s: %w", w.Name, err):
			default: // another part already stopped the service
			}
		}
	})
}

// wait blocks until the context ends or a listener or worker fails, then
// stops the service and returns the failure, or nil.
func (s *service) wait() error {
	select {
	case <-s.ctx.Done():
		return s.stop(nil, false)
	case err := <-s.httpDone:
		return s.stop(err, false)
	case err := <-s.internalDone:
		return s.stop(fmt.Errorf("internal listener stopped: %w", err), true)
	case err := <-s.failed:
		return s.stop(err, false)
	}
}

// stop stops in order and returns cause: out of the registry, the context
// ends (workers, internal listener), the HTTP listeners drain.
func (s *service) stop(cause error, internalStopped bool) error {
	s.beforeDrain()
	s.cancel()
	for _, srv := range s.servers {
		// A drain that runs out of time (a client holding a connection that
		// never sent a request) is not a failed stop: the connections are
		// dropped and the process exits cleanly.
		if err := srv.app.ShutdownWithTimeout(ShutdownTimeout); err != nil {
			s.log.Warn("draining listener", "listener", srv.name, "error", err)
		}
		// Fiber's shutdown closes only a listener it already serves: right
		// after start the server may not have taken it yet.
		_ = srv.ln.Close()
	}
	if !internalStopped {
		if err := <-s.internalDone; err != nil {
			s.log.Warn("internal shutdown", "error", err)
		}
	}
	s.workers.Wait()
	s.log.Info(s.name + " stopped")
	return cause
}
