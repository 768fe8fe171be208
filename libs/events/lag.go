package events

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/segmentio/kafka-go"
)

// lagTimeout bounds the broker requests of one scrape.
const lagTimeout = 2 * time.Second

// LagCollector exposes events_consumer_lag{group,topic}: for each topic a
// consumer group reads, the messages it has not committed yet, as the
// brokers report them (log end offset minus the group's committed offset,
// summed over the partitions; a partition without a commit counts from its
// oldest retained message). It asks the brokers at each scrape, so it tells
// a stuck consumer (whose own fetch statistics would freeze) from a busy
// one. Brokers that do not answer within 2 s leave the series out of the
// scrape rather than failing it.
type LagCollector struct {
	client *kafka.Client
	group  string
	topics []string
	desc   *prometheus.Desc
}

// NewLagCollector returns the lag collector of group reading topics.
func NewLagCollector(brokers []string, group string, topics []string) *LagCollector {
	return &LagCollector{
		client: &kafka.Client{Addr: kafka.TCP(brokers...), Timeout: lagTimeout},
		group:  group,
		topics: append([]string(nil), topics...),
		desc: prometheus.NewDesc("events_consumer_lag",
			"Messages of a topic the consumer group has not committed yet, as the brokers report them.",
			[]string{"topic"}, prometheus.Labels{"group": group}),
	}
}

// Describe implements prometheus.Collector.
func (c *LagCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

// Collect implements prometheus.Collector.
func (c *LagCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), lagTimeout)
	defer cancel()
	lags, err := c.lag(ctx)
	if err != nil {
		return
	}
	for topic, lag := range lags {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(lag), topic)
	}
}

// lag is the group's lag per topic.
func (c *LagCollector) lag(ctx context.Context) (map[string]int64, error) {
	meta, err := c.client.Metadata(ctx, &kafka.MetadataRequest{Topics: c.topics})
	if err != nil {
		return nil, fmt.Errorf("reading topic metadata: %w", err)
	}
	partitions := map[string][]int{}
	offsets := &kafka.ListOffsetsRequest{Topics: map[string][]kafka.OffsetRequest{}}
	for _, t := range meta.Topics {
		if t.Error != nil {
			continue // not created yet: nothing to lag behind
		}
		for _, p := range t.Partitions {
			partitions[t.Name] = append(partitions[t.Name], p.ID)
			offsets.Topics[t.Name] = append(offsets.Topics[t.Name], kafka.FirstOffsetOf(p.ID), kafka.LastOffsetOf(p.ID))
		}
	}
	if len(partitions) == 0 {
		return map[string]int64{}, nil
	}
	ends, err := c.client.ListOffsets(ctx, offsets)
	if err != nil {
		return nil, fmt.Errorf("listing offsets: %w", err)
	}
	committed, err := c.client.OffsetFetch(ctx, &kafka.OffsetFetchRequest{GroupID: c.group, Topics: partitions})
	if err != nil {
		return nil, fmt.Errorf("fetching the group's offsets: %w", err)
	}
	// A group that never committed is unknown to some brokers: it lags by
	// everything retained.
	if committed.Error != nil && !errors.Is(committed.Error, kafka.GroupIdNotFound) {
		return nil, fmt.Errorf("fetching the group's offsets: %w", committed.Error)
	}
	done := map[string]map[int]int64{}
	for topic, parts := range committed.Topics {
		done[topic] = map[int]int64{}
		for _, p := range parts {
			if p.Error == nil {
				done[topic][p.Partition] = p.CommittedOffset
			}
		}
	}
	lags := map[string]int64{}
	for topic, parts := range ends.Topics {
		var lag int64
		for _, p := range parts {
			if p.Error != nil {
				return nil, fmt.Errorf("offsets of %s/%d: %w", topic, p.Partition, p.Error)
			}
			from, ok := done[topic][p.Partition]
			if !ok || from < 0 {
				from = p.FirstOffset
			}
			lag += max(p.LastOffset-from, 0)
		}
		lags[topic] = lag
	}
	return lags, nil
}
