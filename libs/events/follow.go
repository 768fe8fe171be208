package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/paylane/paylane/libs/obs"
)

// Follow reads every partition of topics from the newest message on and
// calls handle for each event, in partition order. It is for state every
// replica keeps for itself, such as a cache that events invalidate: each
// process that follows sees every event, and none replays the past.
//
// No consumer group is involved. A group per process would do the same
// but start "at the newest offset" only once the group's assignment
// settles, at a moment no caller can observe; Follow instead asks the
// brokers for each partition's end offset first and reads from there, so
// once ready is called (when not nil) every event published afterwards is
// handled. No offsets are committed: there is nothing to resume, and no
// abandoned group is left behind by each restart.
//
// handle runs on one goroutine per partition, so calls for different
// partitions may overlap. An event whose handle fails is logged and not
// retried, and a message that is not an envelope is logged and skipped:
// a follower must never stall behind one event. Until the end offsets are
// known (the brokers may be down at start) Follow retries with backoff,
// handling nothing; callers bound what they miss in the meantime by other
// means (a TTL). Partitions added to a topic later are read from the next
// start.
//
// Follow returns nil once ctx is done, and an error only for an unusable
// configuration.
func Follow(ctx context.Context, brokers, topics []string, log *slog.Logger, ready func(),
	handle func(context.Context, Envelope) error) error {
	if len(brokers) == 0 || len(topics) == 0 {
		return errors.New("events: Follow needs brokers and topics")
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var starts []partitionStart
	for backoff := retryMin; ; backoff = min(2*backoff, retryMax) {
		var err error
		if starts, err = endOffsets(ctx, brokers, topics); err == nil {
			break
		}
		log.Warn("finding where to follow events from; retrying", "topics", topics, "retry_in", backoff, "err", err)
		if !sleep(ctx, backoff) {
			return nil
		}
	}
	if ready != nil {
		ready()
	}
	var wg sync.WaitGroup
	for _, s := range starts {
		wg.Go(func() { followPartition(ctx, brokers, s, log, handle) })
	}
	wg.Wait()
	return nil
}

// partitionStart is where Follow starts reading one partition.
type partitionStart struct {
	topic     string
	partition int
	offset    int64
}

// endOffsets returns the offset the next message of every partition of
// topics will get.
func endOffsets(ctx context.Context, brokers, topics []string) ([]partitionStart, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	client := &kafka.Client{Addr: kafka.TCP(brokers...)}
	meta, err := client.Metadata(ctx, &kafka.MetadataRequest{Topics: topics})
	if err != nil {
		return nil, fmt.Errorf("reading topic metadata: %w", err)
	}
	req := &kafka.ListOffsetsRequest{Topics: map[string][]kafka.OffsetRequest{}}
	for _, t := range meta.Topics {
		if t.Error != nil {
			return nil, fmt.Errorf("topic %s: %w", t.Name, t.Error)
		}
		for _, p := range t.Partitions {
			req.Topics[t.Name] = append(req.Topics[t.Name], kafka.LastOffsetOf(p.ID))
		}
	}
	for _, t := range topics {
		if len(req.Topics[t]) == 0 {
			return nil, fmt.Errorf("topic %s has no partitions", t)
		}
	}
	offsets, err := client.ListOffsets(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("listing end offsets: %w", err)
	}
	var out []partitionStart
	for topic, parts := range offsets.Topics {
		for _, p := range parts {
			if p.Error != nil {
				return nil, fmt.Errorf("end offset of %s/%d: %w", topic, p.Partition, p.Error)
			}
			out = append(out, partitionStart{topic: topic, partition: p.Partition, offset: p.LastOffset})
		}
	}
	return out, nil
}

// followPartition reads one partition from s.offset until ctx is done.
func followPartition(ctx context.Context, brokers []string, s partitionStart, log *slog.Logger,
	handle func(context.Context, Envelope) error) {
	log = log.With("topic", s.topic, "partition", s.partition)
	r := kafka.NewReader(kafka.ReaderConfig{
		Brokers:   brokers,
		Topic:     s.topic,
		Partition: s.partition,
		MaxWait:   500 * time.Millisecond,
		ErrorLogger: kafka.LoggerFunc(func(msg string, args ...any) {
			log.Warn("kafka reader: " + fmt.Sprintf(msg, args...))
		}),
	})
	defer r.Close()
	if err := r.SetOffset(s.offset); err != nil {
		log.Error("positioning the follower", "offset", s.offset, "err", err)
		return
	}
	for backoff := retryMin; ; {
		m, err := r.ReadMessage(ctx) // no group: nothing is committed
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			log.Warn("following events", "err", err)
			if !sleep(ctx, backoff) {
				return
			}
			backoff = min(2*backoff, retryMax)
			continue
		}
		backoff = retryMin
		var env Envelope
		if err := json.Unmarshal(m.Value, &env); err != nil || env.ID == "" {
			log.Error("skipping a message that is not an event envelope", "offset", m.Offset, "err", err)
			continue
		}
		if err := handle(obs.WithTraceParent(ctx, traceParentOf(m)), env); err != nil && ctx.Err() == nil {
			log.Warn("handling a followed event failed; not retried", "event_id", env.ID, "type", env.Type, "err", err)
		}
	}
}
