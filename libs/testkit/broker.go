package testkit

import (
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/testkit/brokergroups"
)

// brokerPartitions is the partition count of every topic on a kfake broker.
const brokerPartitions = 3

// NewBroker starts an in-process Kafka-protocol broker (franz-go's kfake, one
// node on 127.0.0.1, random port). The topics of package events exist from the
// start, others are created on first use, each with 3 partitions. kafka-go
// writers and consumer-group readers work against it as against Kafka; a
// group member that died while joining is expired as Kafka would
// (brokergroups). stop closes it; its data lives in memory only.
func NewBroker() (addrs []string, stop func(), err error) {
	c, err := kfake.NewCluster(
		kfake.NumBrokers(1),
		kfake.AllowAutoTopicCreation(),
		kfake.DefaultNumPartitions(brokerPartitions),
		kfake.SeedTopics(brokerPartitions, events.AllTopics()...),
	)
	if err != nil {
		return nil, nil, fmt.Errorf("starting kfake broker: %w", err)
	}
	expiring := brokergroups.ExpireSilentMembers(c, 0)
	return c.ListenAddrs(), func() {
		expiring()
		c.Close()
	}, nil
}

// Broker starts a broker for this test (see NewBroker) and closes it at cleanup.
func Broker(t testing.TB) []string {
	t.Helper()
	addrs, stop, err := NewBroker()
	if err != nil {
		t.Fatalf("testkit: %v", err)
	}
	t.Cleanup(stop)
	return addrs
}
