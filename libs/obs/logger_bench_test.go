package obs_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/libs/reqid"
)

// accessContext is a request's context: its id and its trace.
func accessContext() context.Context {
	return reqid.With(obs.WithTraceParent(context.Background(),
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"), "01JD3X0Q4Z8W2E5R7T9Y1V3K5N")
}

// BenchmarkAccessLine is the access line every request writes through the
// service's logger, as slog's LogAttrs writes it (see Tracing.Requests for
// the middleware's own path, BenchmarkAccessLineRecord).
func BenchmarkAccessLine(b *testing.B) {
	log := obs.NewLogger("contacts-svc", io.Discard, slog.LevelInfo)
	ctx := accessContext()
	b.ReportAllocs()
	for b.Loop() {
		log.LogAttrs(ctx, slog.LevelInfo, "request",
			slog.String("method", "GET"),
			slog.String("route", "/api/v1/contacts/:id"),
			slog.Int("status", 200),
			slog.Int64("duration_ms", 3),
			slog.String("tenant", "01JD3X0Q4Z8W2E5R7T9Y1V3K5P"))
	}
}
