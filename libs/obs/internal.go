package obs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Timeouts of the internal listener.
const (
	readyTimeout    = 2 * time.Second
	shutdownTimeout = 5 * time.Second
	// internalReadTimeout bounds reading a request (a body too: the pprof
	// symbol lookup takes one), so a slow client never holds a goroutine.
	internalReadTimeout = 10 * time.Second
)

// Internal is the internal listener's handler set: liveness, readiness,
// metrics and pprof. ServeInternal serves it; a test or a process that
// already has a server may mount Handler itself.
type Internal struct {
	// Registry is exposed at /metrics; nil exposes an empty registry.
	Registry *prometheus.Registry
	// Ready is asked by /readyz; nil means always ready.
	Ready func(context.Context) error
	// Log receives readiness failures at debug level; nil discards.
	Log *slog.Logger
}

// Handler returns the mux: /healthz (200 while the process serves),
// /readyz (200 when Ready returns nil, else 503), /metrics and
// /debug/pprof/*.
func (in Internal) Handler() http.Handler {
	reg := in.Registry
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	log := in.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeStatus(w, http.StatusOK, "ok")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if in.Ready != nil {
			ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
			defer cancel()
			if err := in.Ready(ctx); err != nil {
				log.DebugContext(ctx, "not ready", "error", err)
				writeStatus(w, http.StatusServiceUnavailable, "unavailable")
				return
			}
		}
		writeStatus(w, http.StatusOK, "ok")
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

func writeStatus(w http.ResponseWriter, code int, status string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	fmt.Fprintf(w, "{\"status\":%q}\n", status)
}

// ServeInternal listens on addr and serves Internal{reg, ready, log} until
// ctx is done, then shuts down gracefully. It returns the bound address
// (useful with port 0) and a channel that receives the server's final
// error (nil after a clean shutdown) and is then closed.
func ServeInternal(ctx context.Context, addr string, reg *prometheus.Registry, ready func(context.Context) error, log *slog.Logger) (net.Addr, <-chan error, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("listening on internal address %s: %w", addr, err)
	}
	srv := &http.Server{
		Handler:           Internal{Registry: reg, Ready: ready, Log: log}.Handler(),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       internalReadTimeout,
		IdleTimeout:       2 * time.Minute,
	}
	done := make(chan error, 1)
	go func() {
		defer close(done)
		serveErr := make(chan error, 1)
		go func() { serveErr <- srv.Serve(ln) }()
		select {
		case err := <-serveErr:
			done <- fmt.Errorf("serving internal listener: %w", err)
			return
		case <-ctx.Done():
		}
		shutCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
		defer cancel()
		err := srv.Shutdown(shutCtx)
		if serr := <-serveErr; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
			err = serr
		}
		if err != nil {
			err = fmt.Errorf("shutting down internal listener: %w", err)
		}
		done <- err
	}()
	return ln.Addr(), done, nil
}
