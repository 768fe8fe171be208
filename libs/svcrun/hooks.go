package svcrun

import (
	"log/slog"
	"net"
	"reflect"
)

// Hooks are what a caller of a service's Run may hand it besides its
// Config: the listener, the logger, the ready callback, the migrate-only
// mode, and the service's test seams (a clock, a fake peer). They are
// options, never Config fields, since no environment variable sets them.
type Hooks struct {
	// Listener, when set, is served instead of listening on Base.HTTPAddr:
	// a caller that must know a service's address before it starts (the
	// devstack tells every service every other's URL) binds it first and
	// hands it over, since an address picked and released could be taken
	// before the service binds it.
	Listener net.Listener
	// Logger receives the service's logs; nil discards them.
	Logger *slog.Logger
	// Ready is called with the bound addresses once every listener is up
	// (callers that listen on port 0 learn the real ports from it).
	Ready func(Addrs)

	migrateOnly bool
	seams       map[reflect.Type]any
}

// Option sets a hook of a run.
type Option func(*Hooks)

// WithListener hands Run a bound HTTP listener (see Hooks.Listener).
func WithListener(ln net.Listener) Option { return func(h *Hooks) { h.Listener = ln } }

// WithLogger sets the service's logger.
func WithLogger(log *slog.Logger) Option { return func(h *Hooks) { h.Logger = log } }

// WithReady sets the callback that gets the bound addresses.
func WithReady(fn func(Addrs)) Option { return func(h *Hooks) { h.Ready = fn } }

// MigrateOnly makes Run apply the migrations and return (the `migrate`
// subcommand, a Kubernetes Job).
func MigrateOnly() Option { return func(h *Hooks) { h.migrateOnly = true } }

// WithSeam hands the service a part that replaces one it would build (a
// clock, a fake peer). Each service offers its seams as options of its
// own (transactionssvc.WithClock), each with a type of its own; Seam reads
// them back in Build.
func WithSeam[T any](v T) Option {
	return func(h *Hooks) {
		if h.seams == nil {
			h.seams = map[reflect.Type]any{}
		}
		h.seams[reflect.TypeFor[T]()] = v
	}
}

// Seam returns the seam of type T handed to the run, and whether there
// was one.
func Seam[T any](e *Env) (T, bool) {
	v, ok := e.hooks.seams[reflect.TypeFor[T]()].(T)
	return v, ok
}

func newHooks(opts []Option) Hooks {
	var h Hooks
	for _, o := range opts {
		o(&h)
	}
	if h.Logger == nil {
		h.Logger = slog.New(slog.DiscardHandler)
	}
	return h
}
