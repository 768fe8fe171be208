package obs

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// TraceParentHeader is the W3C Trace Context header that carries a trace
// between processes: HTTP requests and Kafka messages alike.
const TraceParentHeader = "traceparent"

// propagator reads and writes W3C traceparent and tracestate. It is a value
// without state, so each use builds its own.
func propagator() propagation.TextMapPropagator { return propagation.TraceContext{} }

// Tracing is a service's OpenTelemetry tracer provider. Spans always get
// W3C trace and span ids, so logs and events carry a trace id even when
// nothing is exported; spans leave the process only when the standard
// OTEL_* variables ask for an exporter (see NewTracing). Each service builds
// its own (the devstack runs several in one process, each with its own
// service.name), so no global provider is installed.
type Tracing struct {
	provider  *sdktrace.TracerProvider
	tracer    trace.Tracer
	exporting bool
}

// Environment variables NewTracing reads; the SDK and the OTLP exporter read
// the rest of the standard set themselves (OTEL_EXPORTER_OTLP_HEADERS,
// OTEL_EXPORTER_OTLP_TIMEOUT, OTEL_TRACES_SAMPLER, OTEL_BSP_*,
// OTEL_RESOURCE_ATTRIBUTES, OTEL_SERVICE_NAME, ...).
const (
	envSDKDisabled    = "OTEL_SDK_DISABLED"
	envTracesExporter = "OTEL_TRACES_EXPORTER"
	envEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	envTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	envProtocol       = "OTEL_EXPORTER_OTLP_PROTOCOL"
	envTracesProtocol = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
)

// NewTracing returns the tracer provider of service. Export is off unless
// the environment asks for it: OTEL_TRACES_EXPORTER=otlp, or an
// OTEL_EXPORTER_OTLP_ENDPOINT (or _TRACES_ENDPOINT) with
// OTEL_TRACES_EXPORTER unset; OTEL_TRACES_EXPORTER=none or
// OTEL_SDK_DISABLED=true keep it off. The exporter speaks OTLP over HTTP
// (http/protobuf, the specification's default protocol); grpc is refused
// with an error, so a misconfiguration stops the process at start instead of
// dropping every span. The service name is service unless
// OTEL_SERVICE_NAME says otherwise.
func NewTracing(ctx context.Context, service string) (*Tracing, error) {
	return newTracing(ctx, service, os.Getenv)
}

func newTracing(ctx context.Context, service string, getenv func(string) string) (*Tracing, error) {
	export, err := wantsExport(getenv)
	if err != nil {
		return nil, err
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", service)),
		resource.WithFromEnv(), // OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME win
	)
	if err != nil {
		return nil, fmt.Errorf("tracing resource: %w", err)
	}
	opts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
	if export {
		exp, err := otlptracehttp.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("OTLP trace exporter: %w", err)
		}
		opts = append(opts, sdktrace.WithBatcher(exp))
	}
	tp := sdktrace.NewTracerProvider(opts...)
	return &Tracing{provider: tp, tracer: tp.Tracer("github.com/paylane/paylane/libs/obs"), exporting: export}, nil
}

// wantsExport reads the OTEL_* variables that decide whether spans leave
// the process.
func wantsExport(getenv func(string) string) (bool, error) {
	if strings.EqualFold(strings.TrimSpace(getenv(envSDKDisabled)), "true") {
		return false, nil
	}
	export := false
	switch v := strings.ToLower(strings.TrimSpace(getenv(envTracesExporter))); v {
	case "":
		export = getenv(envEndpoint) != "" || getenv(envTracesEndpoint) != ""
	case "none":
		return false, nil
	case "otlp":
		export = true
	default:
		return false, fmt.Errorf("%s=%q: only otlp and none are supported", envTracesExporter, v)
	}
	if !export {
		return false, nil
	}
	proto := getenv(envTracesProtocol)
	if proto == "" {
		proto = getenv(envProtocol)
	}
	if proto != "" && proto != "http/protobuf" {
		return false, fmt.Errorf("OTLP protocol %q: only http/protobuf is supported", proto)
	}
	return true, nil
}

// Exporting reports whether spans are exported.
func (t *Tracing) Exporting() bool { return t != nil && t.exporting }

// Tracer is the tracer spans of the service start from. A nil *Tracing
// (tests, tools) gives a tracer of its own that assigns ids and exports
// nothing, so trace ids exist everywhere.
func (t *Tracing) Tracer() trace.Tracer {
	if t == nil {
		return sdktrace.NewTracerProvider().Tracer("github.com/paylane/paylane/libs/obs")
	}
	return t.tracer
}

// Shutdown flushes the spans not yet exported (within 5 s) and stops the
// provider. A nil *Tracing does nothing.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := t.provider.Shutdown(ctx); err != nil {
		return fmt.Errorf("stopping tracing: %w", err)
	}
	return nil
}

// Inject writes the trace context of ctx (traceparent, and tracestate when
// there is one) into h, replacing what h held: every internal HTTP call
// makes the callee's spans children of the caller's.
func Inject(ctx context.Context, h http.Header) {
	h.Del(TraceParentHeader)
	h.Del("tracestate")
	propagator().Inject(ctx, propagation.HeaderCarrier(h))
}

// TraceParent is the traceparent value of ctx's span, or "" when ctx
// carries none: what an outbox row and a Kafka message store.
func TraceParent(ctx context.Context) string {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return ""
	}
	m := propagation.MapCarrier{}
	propagator().Inject(ctx, m)
	return m[TraceParentHeader]
}

// WithTraceParent returns ctx continuing the trace of a traceparent value
// (a remote parent); an empty or malformed value leaves ctx as it is.
func WithTraceParent(ctx context.Context, traceParent string) context.Context {
	if traceParent == "" {
		return ctx
	}
	return propagator().Extract(ctx, propagation.MapCarrier{TraceParentHeader: traceParent})
}

// TraceID is the trace id of ctx's span in hex, or "".
func TraceID(ctx context.Context) string {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.HasTraceID() {
		return ""
	}
	return sc.TraceID().String()
}

// TraceIDOf is the trace id of a traceparent value, or "" when it is not one.
func TraceIDOf(traceParent string) string {
	return TraceID(WithTraceParent(context.Background(), traceParent))
}
