package obs

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
)

// Telemetry is what a service's background workers (outbox relays, event
// consumers) report to: the service's name, its metrics registry and its
// tracer provider. A service puts it on the context its workers run under
// (WithTelemetry), so a shared library's worker finds the service's own
// registry without a global one, however many services share the process.
type Telemetry struct {
	// Service names the service ("contacts-svc"); it becomes the service
	// label of the workers' series.
	Service string
	// Registry receives the workers' series; nil: they are not exposed.
	Registry prometheus.Registerer
	// Tracing starts the workers' spans; nil: ids only, nothing exported.
	Tracing *Tracing
}

type telemetryKey struct{}

// WithTelemetry returns ctx carrying t.
func WithTelemetry(ctx context.Context, t Telemetry) context.Context {
	return context.WithValue(ctx, telemetryKey{}, t)
}

// TelemetryFrom returns the Telemetry ctx carries, or the zero value.
func TelemetryFrom(ctx context.Context) Telemetry {
	t, _ := ctx.Value(telemetryKey{}).(Telemetry)
	return t
}

// Register registers c on the registry of ctx's Telemetry, or returns the
// equal collector registered already (two workers of one kind in a
// service). Without a registry c is returned unregistered.
func Register[C prometheus.Collector](ctx context.Context, c C) C {
	reg := TelemetryFrom(ctx).Registry
	if reg == nil {
		return c
	}
	return registerOrReuse(reg, c)
}
