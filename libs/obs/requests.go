package obs

import (
	"context"
	"log/slog"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// tenantKey is the Locals key of the tenant SetTenant records.
type tenantKey struct{}

// SetTenant records the tenant a request acts for (once its token is
// verified), for the access log line.
func SetTenant(c *fiber.Ctx, tenant string) { c.Locals(tenantKey{}, tenant) }

func tenantOf(c *fiber.Ctx) string {
	s, _ := c.Locals(tenantKey{}).(string)
	return s
}

// Requests returns the middleware of a service's HTTP listener: it continues
// the caller's trace (W3C traceparent) in a server span, and logs one
// "request" line per request once the answer is known: method, route
// pattern, status, duration_ms and tenant, with request_id and trace_id from
// the context; never the path, the query, a header or a body, so no phone
// number or token. Register it after the request id middleware (httpx.NewApp
// does that) and before the routes; it renders a handler's error through the
// app's ErrorHandler itself, so it logs the status the client gets.
func (t *Tracing) Requests(log *slog.Logger) fiber.Handler {
	return t.requests(log, true)
}

// EdgeRequests is Requests for the public edge: a client's traceparent is
// not trusted (a client could otherwise join its requests to another's
// trace or pick ids), so every request starts a new trace.
func (t *Tracing) EdgeRequests(log *slog.Logger) fiber.Handler {
	return t.requests(log, false)
}

func (t *Tracing) requests(log *slog.Logger, continueTrace bool) fiber.Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	tracer := t.Tracer()
	exporting := t.Exporting()
	return func(c *fiber.Ctx) error {
		start := time.Now()
		method := methodLabel(c.Method())
		ctx := c.UserContext()
		if continueTrace {
			ctx = propagator().Extract(ctx, requestHeaderCarrier{&c.Request().Header})
		}
		ctx, span := tracer.Start(ctx, method, trace.WithSpanKind(trace.SpanKindServer), trace.WithTimestamp(start))
		c.SetUserContext(ctx)
		finished := false
		var err error
		defer func() {
			if !finished { // a panic unwinds: the recovery middleware answers 500
				logRequest(log, c, requestSpan{span, exporting}, method, routeOf(c, nil), fiber.StatusInternalServerError, start)
			}
		}()
		if err = c.Next(); err != nil {
			if herr := c.App().ErrorHandler(c, err); herr != nil {
				finished = true
				logRequest(log, c, requestSpan{span, exporting}, method, routeOf(c, err), fiber.StatusInternalServerError, start)
				return herr
			}
		}
		finished = true
		logRequest(log, c, requestSpan{span, exporting}, method, routeOf(c, err), c.Response().StatusCode(), start)
		return nil
	}
}

// requestSpan is a request's server span, and whether spans leave the
// process.
type requestSpan struct {
	trace.Span
	exporting bool
}

// end names and ends the span. Its attributes and status are set only when
// spans are exported: otherwise nothing reads them, and the span is there
// for its ids (the trace id of logs, the traceparent of calls and events).
func (s requestSpan) end(method, route string, status int) {
	if s.exporting {
		s.SetName(method + " " + route)
		s.SetAttributes(
			attribute.String("http.request.method", method),
			attribute.String("http.route", route),
			attribute.Int("http.response.status_code", status),
		)
		if status >= fiber.StatusInternalServerError {
			s.SetStatus(codes.Error, strconv.Itoa(status))
		}
	}
	s.End()
}

// logRequest ends span and writes the access line: info, warn for a 5xx.
func logRequest(log *slog.Logger, c *fiber.Ctx, span requestSpan, method, route string, status int, start time.Time) {
	span.end(method, route, status)
	accessLine(c.UserContext(), log, method, route, status, start, tenantOf(c))
}

// LogUnrouted writes the access line of a request answered outside the
// middleware chain (a method Fiber does not route), with status as
// answered; it starts no span.
func LogUnrouted(ctx context.Context, log *slog.Logger, method string, status int, start time.Time) {
	accessLine(ctx, log, methodLabel(method), unmatchedRoute, status, start, "")
}

// accessLine writes the "request" line: info, warn for a 5xx; the tenant
// when known. It hands the record to the handler itself, as slog's own
// methods do but without the caller's program counter they look up on the
// stack for every record (runtime.Callers): no handler of this package
// writes the source, and the line's source would be this function anyway.
func accessLine(ctx context.Context, log *slog.Logger, method, route string, status int, start time.Time, tenant string) {
	level := slog.LevelInfo
	if status >= fiber.StatusInternalServerError {
		level = slog.LevelWarn
	}
	if ctx == nil {
		ctx = context.Background()
	}
	h := log.Handler()
	if !h.Enabled(ctx, level) {
		return
	}
	now := time.Now()
	r := slog.NewRecord(now, level, "request", 0)
	r.AddAttrs(
		slog.String("method", method),
		slog.String("route", route),
		slog.Int("status", status),
		slog.Int64("duration_ms", now.Sub(start).Milliseconds()),
	)
	if tenant != "" {
		r.AddAttrs(slog.String("tenant", tenant))
	}
	_ = h.Handle(ctx, r)
}

// requestHeaderCarrier reads and writes a fasthttp request's headers for
// the propagator.
type requestHeaderCarrier struct{ h *fasthttp.RequestHeader }

func (r requestHeaderCarrier) Get(key string) string { return string(r.h.Peek(key)) }

func (r requestHeaderCarrier) Set(key, value string) { r.h.Set(key, value) }

func (r requestHeaderCarrier) Keys() []string {
	var keys []string
	r.h.VisitAll(func(k, _ []byte) { keys = append(keys, string(k)) })
	return keys
}

// InjectRequest writes the trace context of ctx into a fasthttp request
// (the gateway's forwarded requests), replacing any the client sent.
func InjectRequest(ctx context.Context, h *fasthttp.RequestHeader) {
	h.Del(TraceParentHeader)
	h.Del("tracestate")
	propagator().Inject(ctx, requestHeaderCarrier{h})
}
