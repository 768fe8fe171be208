package obs

import (
	"errors"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/paylane/paylane/libs/apierr"
)

// NewRegistry returns a Prometheus registry with the Go runtime and process
// collectors registered. Each service builds its own (no global registry),
// so several services can run in one process.
func NewRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return reg
}

// unmatchedRoute is the route label of requests no route matched, so paths
// of unknown URLs (unbounded, maybe holding phone numbers) never become labels.
const unmatchedRoute = "unmatched"

// HTTPMetrics returns the middleware that counts requests
// (http_requests_total by route, method and status) and observes their
// duration (http_request_duration_seconds by route and method). The route
// label is the route pattern, never the raw path. Registering it twice on
// one registry reuses the collectors already there.
func HTTPMetrics(reg prometheus.Registerer, service string) fiber.Handler {
	labels := prometheus.Labels{"service": service}
	requests := registerOrReuse(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "http_requests_total", Help: "HTTP requests by route, method and status.", ConstLabels: labels,
	}, []string{"route", "method", "status"}))
	duration := registerOrReuse(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "http_request_duration_seconds", Help: "HTTP request duration by route and method.",
		ConstLabels: labels, Buckets: prometheus.DefBuckets,
	}, []string{"route", "method"}))
	return func(c *fiber.Ctx) error {
		start := time.Now()
		finished := false
		var err error
		// The deferred record also runs while a panic unwinds (recorded as
		// 500) without recovering it, so the recovery middleware above
		// still sees the original stack.
		defer func() {
			status := fiber.StatusInternalServerError
			if finished {
				status = statusOf(c, err)
			}
			route := routeOf(c, err)
			method := methodLabel(c.Method())
			requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
			duration.WithLabelValues(route, method).Observe(time.Since(start).Seconds())
		}()
		err = c.Next()
		finished = true
		return err
	}
}

// methodLabel is the method as a label value: a constant string, since the
// one Fiber returns points into the connection's request buffer, which the
// next request on the connection overwrites while the registry still holds
// the label. Methods outside the standard set share one label, so a client
// cannot mint label values.
func methodLabel(m string) string {
	switch m {
	case fiber.MethodGet:
		return fiber.MethodGet
	case fiber.MethodHead:
		return fiber.MethodHead
	case fiber.MethodPost:
		return fiber.MethodPost
	case fiber.MethodPut:
		return fiber.MethodPut
	case fiber.MethodPatch:
		return fiber.MethodPatch
	case fiber.MethodDelete:
		return fiber.MethodDelete
	case fiber.MethodOptions:
		return fiber.MethodOptions
	case fiber.MethodConnect:
		return fiber.MethodConnect
	case fiber.MethodTrace:
		return fiber.MethodTrace
	default:
		return "other"
	}
}

// statusOf is the status the response will carry: the error handler runs
// after the chain returns, so the status of an error is read from it.
func statusOf(c *fiber.Ctx, err error) int {
	if err == nil {
		return c.Response().StatusCode()
	}
	if ae, ok := apierr.From(err); ok { // an error carrying its answer, domain errors included
		return ae.Status
	}
	var fe *fiber.Error
	if errors.As(err, &fe) {
		return fe.Code
	}
	return fiber.StatusInternalServerError
}

// routeKey is the Locals key of the route pattern SetRoute records.
type routeKey struct{}

// SetRoute records the route pattern of the request being served, for an
// app whose own router does not know it (the gateway matches paths against
// the OpenAPI document behind one catch-all handler). pattern must be a
// fixed string of the app (a documented path template), never the raw path.
func SetRoute(c *fiber.Ctx, pattern string) { c.Locals(routeKey{}, pattern) }

// routeOf is the route label: the pattern SetRoute recorded, else the
// pattern of the Fiber route that served the request; a request that no
// route matched (404, 405, or an answer of a catch-all middleware without a
// recorded pattern) is "unmatched".
func routeOf(c *fiber.Ctx, err error) string {
	if p, ok := c.Locals(routeKey{}).(string); ok && p != "" {
		return p
	}
	var fe *fiber.Error
	if errors.As(err, &fe) && (fe.Code == fiber.StatusNotFound || fe.Code == fiber.StatusMethodNotAllowed) {
		return unmatchedRoute
	}
	// The pattern of a catch-all middleware says nothing of the route: a
	// request answered there before any route matched is unmatched too.
	if r := c.Route(); r == nil || r.Path == "/" || r.Path == "*" || r.Path == "/*" {
		return unmatchedRoute
	}
	return c.Route().Path
}

// registerOrReuse registers c, or returns the equal collector already
// registered.
func registerOrReuse[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing
			}
		}
		panic("obs: registering metrics: " + err.Error())
	}
	return c
}
