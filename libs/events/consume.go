package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/segmentio/kafka-go"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/paylane/paylane/libs/obs"
)

const (
	retryMin = 100 * time.Millisecond
	retryMax = 30 * time.Second
)

// Consume reads topics as consumer group group and calls handle for each event,
// one at a time per reader, in partition order. The offset is committed after
// handle returns nil; when handle fails, the same event is retried with
// exponential backoff (100 ms doubling to 30 s) until it succeeds: an event is
// never skipped, so handle must make redeliveries harmless (inbox.Claim).
// The one exception is a message that is not an envelope at all: no retry can
// change it, so it is logged and committed.
//
// handle runs in a consumer span continuing the trace of the message's
// traceparent header. When ctx carries the service's obs.Telemetry, the
// group's lag is exposed on its registry (NewLagCollector) and the spans
// come from its tracer.
//
// A new group starts at the oldest retained message. Consume returns nil once
// ctx is done, and an error only for an unusable configuration.
func Consume(ctx context.Context, brokers []string, group string, topics []string, log *slog.Logger,
	handle func(context.Context, Envelope) error) error {
	r, log, tracer, err := joinGroup(ctx, "Consume", brokers, group, topics, 0, log)
	if err != nil {
		return err
	}
	defer r.Close()

	for backoff := retryMin; ; {
		m, err := r.FetchMessage(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			log.Warn("fetching events", "err", err)
			if !sleep(ctx, backoff) {
				return nil
			}
			backoff = min(2*backoff, retryMax)
			continue
		}
		backoff = retryMin
		if !handleMessage(ctx, tracer, group, m, log, handle) {
			return nil
		}
		if err := r.CommitMessages(ctx, m); err != nil && ctx.Err() == nil {
			// The event will come again after a rebalance; handle copes with that.
			log.Warn("committing offset", "topic", m.Topic, "partition", m.Partition, "offset", m.Offset, "err", err)
		}
	}
}

// handleMessage decodes m and calls handle until it succeeds, in a consumer
// span that continues the producer's trace. It returns false when ctx ended
// first.
func handleMessage(ctx context.Context, tracer trace.Tracer, group string, m kafka.Message, log *slog.Logger,
	handle func(context.Context, Envelope) error) bool {
	env, ok := decode(m, log)
	if !ok {
		return true
	}
	ctx, span := startConsumeSpan(ctx, tracer, m, group)
	defer span.End()
	span.SetAttributes(attribute.String("messaging.message.id", env.ID), attribute.String("paylane.event.type", env.Type))
	handled := untilHandled(ctx, log, "handling event failed; retrying", func() error { return handle(ctx, env) },
		"event_id", env.ID, "type", env.Type)
	if handled {
		log.DebugContext(ctx, "event handled", "event_id", env.ID, "type", env.Type, "topic", m.Topic)
	}
	return handled
}

// joinGroup checks a consumer's configuration (fn, the caller, names it in
// the error) and returns the group's reader (newReader), log naming the
// group (a discarding one when log is nil) and the tracer of ctx's
// obs.Telemetry, having registered the group's lag on its registry.
func joinGroup(ctx context.Context, fn string, brokers []string, group string, topics []string, queue int,
	log *slog.Logger) (*kafka.Reader, *slog.Logger, trace.Tracer, error) {
	if len(brokers) == 0 || group == "" || len(topics) == 0 {
		return nil, nil, nil, errors.New("events: " + fn + " needs brokers, a group and topics")
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("group", group)
	r := newReader(brokers, group, topics, queue, log)
	registerLag(ctx, brokers, group, topics)
	return r, log, obs.TelemetryFrom(ctx).Tracing.Tracer(), nil
}

// newReader returns a consumer-group reader of topics that starts a new
// group at the oldest retained message. queue is how many fetched messages
// it holds ahead of the caller (kafka-go's default of 100 when 0).
func newReader(brokers []string, group string, topics []string, queue int, log *slog.Logger) *kafka.Reader {
	return kafka.NewReader(kafka.ReaderConfig{
		Brokers:           brokers,
		GroupID:           group,
		GroupTopics:       topics,
		StartOffset:       kafka.FirstOffset,
		MaxWait:           500 * time.Millisecond,
		QueueCapacity:     queue,
		HeartbeatInterval: time.Second,
		SessionTimeout:    10 * time.Second,
		RebalanceTimeout:  10 * time.Second,
		ErrorLogger: kafka.LoggerFunc(func(msg string, args ...any) {
			log.Warn("kafka reader: " + fmt.Sprintf(msg, args...))
		}),
	})
}

// decode reads the envelope of m. A message that is not an envelope at all
// is logged and reported false: no retry can change it.
func decode(m kafka.Message, log *slog.Logger) (Envelope, bool) {
	var env Envelope
	if err := json.Unmarshal(m.Value, &env); err != nil || env.ID == "" {
		log.Error("skipping a message that is not an event envelope",
			"topic", m.Topic, "partition", m.Partition, "offset", m.Offset, "err", err)
		return Envelope{}, false
	}
	return env, true
}

// untilHandled calls handle until it returns nil, waiting between attempts
// with exponential backoff (100 ms doubling to 30 s) and logging each
// failure as msg with attrs. It returns false when ctx ended first.
func untilHandled(ctx context.Context, log *slog.Logger, msg string, handle func() error, attrs ...any) bool {
	for attempt, backoff := 1, retryMin; ; attempt++ {
		err := handle()
		if err == nil {
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		log.Warn(msg, append(attrs[:len(attrs):len(attrs)], "attempt", attempt, "retry_in", backoff, "err", err)...)
		if !sleep(ctx, backoff) {
			return false
		}
		backoff = min(2*backoff, retryMax)
	}
}

// sleep waits d, or less when ctx ends first (then it returns false).
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
