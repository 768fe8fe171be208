// Package svcrun is the one lifecycle every service and the gateway share:
// Run checks the configuration, migrates with the owner role, opens the app
// pool, builds the service (Spec.Build), binds the HTTP listeners and the
// internal one (/healthz, /readyz, /metrics, pprof), starts the workers,
// registers with service discovery when configured, reports the bound
// addresses, and on the end of the context (or the first failure) stops in
// order: out of the registry, the HTTP listeners drain, the internal
// listener and the workers end with the context, the pool closes.
// Main is every command's main.
package svcrun

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"

	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/paylane/paylane/libs/discovery"
	"github.com/paylane/paylane/libs/envconf"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/libs/pgdb"
)

// Spec is what a service hands Run: its name, its shared configuration, its
// migrations and how to build it.
type Spec struct {
	// Name labels logs and metrics ("contacts-svc").
	Name string
	// Base holds the listeners, the database, the broker and identity-svc.
	Base envconf.Base
	// Migrations are the service's embedded migrations; nil means the
	// service owns no database (no pool is opened).
	Migrations []pgdb.MigrationSet
	// Validate checks the service's whole configuration before anything
	// starts; nil checks nothing.
	Validate func() error
	// Build wires the service on what Run prepared (pool, logger, metrics
	// registry, options) and returns what to serve and run.
	Build func(ctx context.Context, e *Env) (Parts, error)
	// Registrar, when set, registers the instance (its HTTP port, with a
	// health check on the internal listener's /readyz) once it is up, and
	// deregisters it before the listeners drain. AdvertiseHost is the host
	// announced; empty means the machine's host name.
	Registrar     discovery.Registrar
	AdvertiseHost string
}

// Env is what Build gets.
type Env struct {
	// Name is Spec.Name.
	Name string
	// Pool is the app role's pool; nil for a service without migrations.
	Pool *pgxpool.Pool
	// Log is the service's logger (WithLogger; discarded otherwise).
	Log *slog.Logger
	// Registry is exposed at the internal listener's /metrics.
	Registry *prometheus.Registry
	// Tracing is the service's tracer provider (obs.NewTracing): NewApp
	// traces requests with it, workers find it with Name and Registry as
	// the obs.Telemetry of their context, and Run flushes it at the end.
	Tracing *obs.Tracing
	hooks   Hooks
}

// NewApp is the service's Fiber app: libs/httpx's, with the HTTP metrics of
// the service registered.
func (e *Env) NewApp(cfg ...fiber.Config) *fiber.App {
	web := httpx.NewApp(e.Log, cfg...)
	web.Use(obs.HTTPMetrics(e.Registry, e.Name), e.Tracing.Requests(e.Log))
	return web
}

// Parts are what Build returns.
type Parts struct {
	// Web serves Base.HTTPAddr (or the listener handed over by WithListener).
	Web *fiber.App
	// Servers are further listeners (the gateway's admin plane).
	Servers []Server
	// TLS, when set, wraps every HTTP listener (not the internal one).
	TLS *tls.Config
	// Ready answers /readyz; nil means a ping of the pool (always ready
	// without one).
	Ready func(context.Context) error
	// Workers run under the service's context from start to stop.
	Workers []Worker
	// Close runs once the service has stopped (clients Build opened).
	Close func()
	// LogAttrs are added to the "started" log line.
	LogAttrs []any
}

// Server is a further HTTP listener.
type Server struct {
	Name, Addr string
	App        *fiber.App
}

// Worker is a background loop. One that returns an error while the service
// runs stops the service with that error (named by Name); returning nil
// only ends the worker.
type Worker struct {
	Name string
	Run  func(context.Context) error
}

// Loop is a worker that only ends with the context (periodic cleanups).
func Loop(name string, fn func(context.Context)) Worker {
	return Worker{Name: name, Run: func(ctx context.Context) error { fn(ctx); return nil }}
}

// Run runs the service of spec until ctx is done or a part fails, then stops
// it gracefully (see the package comment). With MigrateOnly it migrates and
// returns. A listener handed over with WithListener belongs to Run from
// then on: it is closed whenever Run returns, also when starting fails.
func Run(ctx context.Context, spec Spec, opts ...Option) error {
	h := newHooks(opts)
	serving := false
	defer func() {
		if !serving && h.Listener != nil {
			_ = h.Listener.Close()
		}
	}()
	if h.migrateOnly {
		if spec.Migrations == nil {
			h.Logger.Info(spec.Name + " owns no database: nothing to migrate")
			return nil
		}
		return Migrate(ctx, spec.Base.MigrateDatabaseURL, spec.Base.DatabaseURL, spec.Migrations...)
	}
	if spec.Validate != nil {
		if err := spec.Validate(); err != nil {
			return fmt.Errorf("invalid configuration: %w", err)
		}
	}
	tracing, err := obs.NewTracing(ctx, spec.Name)
	if err != nil {
		return fmt.Errorf("invalid configuration: %w", err)
	}
	defer func() {
		// After the workers have ended (Run returns once they have).
		if err := tracing.Shutdown(context.WithoutCancel(ctx)); err != nil {
			h.Logger.Warn("tracing shutdown", "error", err)
		}
	}()
	e := &Env{Name: spec.Name, Log: h.Logger, Registry: obs.NewRegistry(), Tracing: tracing, hooks: h}
	// Workers (outbox relay, consumers) find the registry and tracer here.
	ctx = obs.WithTelemetry(ctx, obs.Telemetry{Service: spec.Name, Registry: e.Registry, Tracing: tracing})
	if spec.Migrations != nil {
		pool, err := openDatabase(ctx, spec)
		if err != nil {
			return err
		}
		defer pool.Close()
		e.Pool = pool
	}
	parts, err := spec.Build(ctx, e)
	if err != nil {
		return err
	}
	if parts.Close != nil {
		defer parts.Close()
	}
	if parts.Ready == nil && e.Pool != nil {
		parts.Ready = e.Pool.Ping
	}
	svc, err := start(ctx, spec, h, parts, e.Registry)
	serving = true // svc closed every listener, the handed one included, or owns them now
	if err != nil {
		return err
	}
	return svc.run(spec, parts, h)
}

// openDatabase migrates when the owner DSN is set and opens the app pool.
func openDatabase(ctx context.Context, spec Spec) (*pgxpool.Pool, error) {
	if spec.Base.MigrateDatabaseURL != "" {
		if err := Migrate(ctx, spec.Base.MigrateDatabaseURL, spec.Base.DatabaseURL, spec.Migrations...); err != nil {
			return nil, err
		}
	}
	pool, err := pgdb.Open(ctx, spec.Base.DatabaseURL, spec.Base.DBMaxConns)
	if err != nil {
		return nil, fmt.Errorf("opening database: %w", err)
	}
	return pool, nil
}

// run starts the workers, registers the instance, reports the addresses and
// waits for the end.
func (s *service) run(spec Spec, parts Parts, h Hooks) error {
	for _, w := range parts.Workers {
		s.goWorker(w)
	}
	addrs := s.addrs()
	deregister, err := announce(s.ctx, spec, addrs, s.log)
	if err != nil {
		if s.ctx.Err() != nil {
			err = nil // stopped while registering: a normal stop
		}
		return s.stop(err, false)
	}
	// Out of the registry before draining: no new traffic is sent here.
	s.beforeDrain = deregister
	s.log.Info(spec.Name+" started", append([]any{"http_addr", addrs.HTTP, "internal_addr", addrs.Internal,
		"kafka", len(spec.Base.KafkaBrokers) > 0, "discovery", spec.Registrar != nil}, parts.LogAttrs...)...)
	if h.Ready != nil {
		h.Ready(addrs)
	}
	return s.wait()
}

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
