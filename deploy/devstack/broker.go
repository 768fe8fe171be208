package devstack

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kfake"
)

// startBroker starts an in-process Kafka-protocol broker (franz-go's kfake)
// on a free loopback port. Topics are created when first used, which is what
// the services' kafka-go writers and readers expect of a development broker.
// Its log lives in memory: events are not kept across restarts (the outboxes
// in Postgres are).
func startBroker() (addrs []string, stop func(), err error) {
	c, err := kfake.NewCluster(
		kfake.NumBrokers(1),
		kfake.AllowAutoTopicCreation(),
		kfake.DefaultNumPartitions(3),
	)
	if err != nil {
		return nil, nil, fmt.Errorf("starting the broker: %w", err)
	}
	return c.ListenAddrs(), c.Close, nil
}
