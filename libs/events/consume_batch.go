package events

import (
	"context"
	"log/slog"
	"time"

	"github.com/segmentio/kafka-go"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/paylane/paylane/libs/obs"
)

// Defaults of BatchLimits.
const (
	DefaultBatchSize = 500
	DefaultBatchWait = 10 * time.Millisecond
)

// BatchLimits bound the batches ConsumeBatch hands to its handler.
type BatchLimits struct {
	// Size is the most messages in one batch (DefaultBatchSize when 0).
	Size int
	// Wait is how long a batch stays open for more messages once its first
	// message arrived (DefaultBatchWait when 0). A batch never waits for its
	// first message longer than the broker takes to deliver one.
	Wait time.Duration
}

func (l BatchLimits) withDefaults() BatchLimits {
	if l.Size <= 0 {
		l.Size = DefaultBatchSize
	}
	if l.Wait <= 0 {
		l.Wait = DefaultBatchWait
	}
	return l
}

// ConsumeBatch is Consume for handlers that apply many events at once: it
// reads topics as consumer group group, collects what has arrived (up to
// limits.Size messages, waiting at most limits.Wait after the first) and
// calls handle with the batch's events in fetch order, so the events of one
// partition keep their order. After handle returns nil the offsets of the
// whole batch are committed together; when it fails, the same batch is
// retried with exponential backoff (100 ms doubling to 30 s) until it
// succeeds, and nothing is committed meanwhile: an event is never skipped,
// so handle must make redeliveries harmless (inbox.ClaimAll). Messages that
// are not envelopes are logged, left out of the batch and committed with it.
//
// handle runs in one consumer span linked to the trace of every event's
// traceparent header; the lag and tracer come from ctx's obs.Telemetry, as
// for Consume.
//
// A batch may hold events of several partitions and tenants. A new group
// starts at the oldest retained message. ConsumeBatch returns nil once ctx is
// done, and an error only for an unusable configuration.
func ConsumeBatch(ctx context.Context, brokers []string, group string, topics []string, limits BatchLimits,
	log *slog.Logger, handle func(context.Context, []Envelope) error) error {
	limits = limits.withDefaults()
	r, log, tracer, err := joinGroup(ctx, "ConsumeBatch", brokers, group, topics, limits.Size, log)
	if err != nil {
		return err
	}
	defer r.Close()

	for backoff := retryMin; ; {
		batch, err := fetchBatch(ctx, r, limits)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			log.Warn("fetching events", "err", err)
		}
		if len(batch) == 0 {
			if !sleep(ctx, backoff) {
				return nil
			}
			backoff = min(2*backoff, retryMax)
			continue
		}
		backoff = retryMin
		if !handleBatch(ctx, tracer, group, batch, log, handle) {
			return nil
		}
		if err := r.CommitMessages(ctx, batch...); err != nil && ctx.Err() == nil {
			// The events will come again after a rebalance; handle copes with that.
			last := batch[len(batch)-1]
			log.Warn("committing offsets", "messages", len(batch), "topic", last.Topic,
				"partition", last.Partition, "offset", last.Offset, "err", err)
		}
	}
}

// fetchBatch waits for one message, then takes whatever else arrives within
// l.Wait, up to l.Size messages. An error after the first message ends the
// batch early and is returned with it.
func fetchBatch(ctx context.Context, r *kafka.Reader, l BatchLimits) ([]kafka.Message, error) {
	m, err := r.FetchMessage(ctx)
	if err != nil {
		return nil, err
	}
	batch := make([]kafka.Message, 1, l.Size)
	batch[0] = m
	open, cancel := context.WithTimeout(ctx, l.Wait)
	defer cancel()
	for len(batch) < l.Size {
		m, err := r.FetchMessage(open)
		switch {
		case err == nil:
			batch = append(batch, m) // a fetched message always joins: it is never fetched again
		case open.Err() != nil:
			return batch, nil // the batch's time is up (or ctx ended: the caller checks)
		default:
			return batch, err
		}
	}
	return batch, nil
}

// handleBatch decodes msgs and calls handle with their events until it
// succeeds. It returns false when ctx ended first.
func handleBatch(ctx context.Context, tracer trace.Tracer, group string, msgs []kafka.Message, log *slog.Logger,
	handle func(context.Context, []Envelope) error) bool {
	envs := make([]Envelope, 0, len(msgs))
	traces := make([]trace.SpanContext, 0, len(msgs)) // each event's, parallel to envs
	var links []trace.Link
	for _, m := range msgs {
		if env, ok := decode(m, log); ok {
			sc := trace.SpanContextFromContext(obs.WithTraceParent(ctx, traceParentOf(m)))
			envs = append(envs, env)
			traces = append(traces, sc)
			if sc.IsValid() {
				links = append(links, trace.Link{SpanContext: sc})
			}
		}
	}
	if len(envs) == 0 {
		return true
	}
	// One span for the batch, linked to the trace of each event's request;
	// when the events all come from one trace (one request's events, the
	// usual batch of a quiet moment), the span continues it, so that trace
	// shows what the consumer did for the request.
	parent := ctx
	if sc, ok := oneTrace(traces); ok {
		parent = trace.ContextWithRemoteSpanContext(ctx, sc)
	}
	bctx, span := tracer.Start(parent, "consume batch", trace.WithSpanKind(trace.SpanKindConsumer), trace.WithLinks(links...),
		trace.WithAttributes(attribute.String("messaging.system", "kafka"),
			attribute.String("messaging.consumer.group.name", group),
			attribute.Int("messaging.batch.message_count", len(envs))))
	defer span.End()
	first, last := msgs[0], msgs[len(msgs)-1]
	handled := untilHandled(bctx, log, "handling a batch of events failed; retrying",
		func() error { return handle(bctx, envs) },
		"events", len(envs), "first_event_id", envs[0].ID, "topic", first.Topic,
		"first_offset", first.Offset, "last_offset", last.Offset)
	if handled && log.Enabled(ctx, slog.LevelDebug) {
		batchTrace := obs.TraceID(bctx)
		for i, env := range envs {
			// Logged in the event's own trace, as Consume logs it.
			log.DebugContext(trace.ContextWithRemoteSpanContext(ctx, traces[i]), "event handled",
				"event_id", env.ID, "type", env.Type, "batch_trace_id", batchTrace)
		}
	}
	return handled
}

// oneTrace returns the span context of the first event when every event
// has one and they all belong to the same trace.
func oneTrace(traces []trace.SpanContext) (trace.SpanContext, bool) {
	for _, sc := range traces {
		if !sc.IsValid() || sc.TraceID() != traces[0].TraceID() {
			return trace.SpanContext{}, false
		}
	}
	return traces[0], len(traces) > 0
}
