package events

import (
	"context"

	"github.com/segmentio/kafka-go"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/paylane/paylane/libs/obs"
)

// traceParentOf is the traceparent header of m, or "".
func traceParentOf(m kafka.Message) string {
	for _, h := range m.Headers {
		if h.Key == obs.TraceParentHeader {
			return string(h.Value)
		}
	}
	return ""
}

// startConsumeSpan returns ctx continuing the trace of m (the producer's
// request, through the outbox row and the message's traceparent header) in
// a consumer span.
func startConsumeSpan(ctx context.Context, tracer trace.Tracer, m kafka.Message, group string) (context.Context, trace.Span) {
	ctx = obs.WithTraceParent(ctx, traceParentOf(m))
	return tracer.Start(ctx, "consume "+m.Topic,
		trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(
			attribute.String("messaging.system", "kafka"),
			attribute.String("messaging.destination.name", m.Topic),
			attribute.String("messaging.consumer.group.name", group),
			attribute.Int("messaging.destination.partition.id", m.Partition),
			attribute.Int64("messaging.kafka.offset", m.Offset),
		))
}

// registerLag registers the lag collector of group on the registry of ctx's
// obs.Telemetry, once per group.
func registerLag(ctx context.Context, brokers []string, group string, topics []string) {
	if obs.TelemetryFrom(ctx).Registry != nil {
		obs.Register(ctx, NewLagCollector(brokers, group, topics))
	}
}
