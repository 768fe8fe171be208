package obs

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/paylane/paylane/libs/reqid"
)

// BenchmarkRequestSpan is a request's server span from start to end, with
// spans exported (attributes set) and not (the default).
func BenchmarkRequestSpan(b *testing.B) {
	tracer := (*Tracing)(nil).Tracer()
	for _, exporting := range []bool{true, false} {
		name := "not exported"
		if exporting {
			name = "exported"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, span := tracer.Start(context.Background(), "GET", trace.WithSpanKind(trace.SpanKindServer))
				requestSpan{span, exporting}.end("GET", "/api/v1/contacts/:id", 200)
			}
		})
	}
}

// BenchmarkAccessLineRecord is the middleware's access line (accessLine),
// to compare with BenchmarkAccessLine's LogAttrs.
func BenchmarkAccessLineRecord(b *testing.B) {
	log := NewLogger("contacts-svc", io.Discard, slog.LevelInfo)
	ctx := reqid.With(WithTraceParent(context.Background(),
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"), "01JD3X0Q4Z8W2E5R7T9Y1V3K5N")
	start := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		accessLine(ctx, log, "GET", "/api/v1/contacts/:id", 200, start, "01JD3X0Q4Z8W2E5R7T9Y1V3K5P")
	}
}
