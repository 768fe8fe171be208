package dispatch

import (
	"net/http"
	"sync"
	"time"

	"github.com/sony/gobreaker/v2"

	"github.com/paylane/paylane/webhook-svc/internal/netguard"
)

// endpoint is what the dispatcher keeps per endpoint in memory: its circuit
// breaker and its pooled HTTP client.
type endpoint struct {
	breaker   *gobreaker.TwoStepCircuitBreaker[struct{}]
	client    *http.Client
	transport *http.Transport
	lastUsed  time.Time
}

// endpoints holds the per-endpoint state of one dispatcher.
type endpoints struct {
	opts Options
	mu   sync.Mutex
	m    map[string]*endpoint
}

func newEndpoints(o Options) *endpoints {
	return &endpoints{opts: o, m: map[string]*endpoint{}}
}

// get returns the state of an endpoint, made on first use.
func (e *endpoints) get(tenantID, endpointID string) *endpoint {
	key := tenantID + "/" + endpointID
	e.mu.Lock()
	defer e.mu.Unlock()
	ep, ok := e.m[key]
	if !ok {
		failures := e.opts.BreakerFailures
		t := netguard.NewTransport(e.opts.Transport)
		ep = &endpoint{
			transport: t,
			client:    netguard.NewClient(t, e.opts.Timeout),
			breaker: gobreaker.NewTwoStepCircuitBreaker[struct{}](gobreaker.Settings{
				Name:        key,
				MaxRequests: 1,
				Timeout:     e.opts.BreakerOpenFor,
				ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= failures },
			}),
		}
		e.m[key] = ep
	}
	ep.lastUsed = time.Now()
	return ep
}

// prune drops the state of endpoints unused for idle and closes their
// idle connections.
func (e *endpoints) prune(idle time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for key, ep := range e.m {
		if time.Since(ep.lastUsed) > idle {
			ep.transport.CloseIdleConnections()
			delete(e.m, key)
		}
	}
}
