package obs

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/trace"
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
