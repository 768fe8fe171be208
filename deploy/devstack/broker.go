package devstack

import (
	"fmt"
	"net"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/testkit/brokergroups"
)

// startBroker starts an in-process Kafka-protocol broker (franz-go's kfake)
// on a free loopback port. Every topic of the catalog exists from the start
// with 3 partitions, as a production cluster provisions them: a follower
// (events.Follow) that starts before a topic's first event then reads it
// instead of waiting for the topic to appear. Other topics are created when
// first used.
// A consumer-group member that died while joining (a service killed during
// its group's rebalance) is expired as Kafka would (brokergroups), so its
// partitions go back to the live members.
// Its log lives in memory: events are not kept across restarts (the outboxes
// in Postgres are).
// listen, when not nil, opens the broker's listener (see
// Options.BrokerListen).
func startBroker(listen func(network, addr string) (net.Listener, error)) (addrs []string, stop func(), err error) {
	opts := []kfake.Opt{
		kfake.NumBrokers(1),
		kfake.AllowAutoTopicCreation(),
		kfake.DefaultNumPartitions(3),
		kfake.SeedTopics(3, events.AllTopics()...),
	}
	if listen != nil {
		opts = append(opts, kfake.ListenFn(listen))
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("starting the broker: %w", err)
	}
	expiring := brokergroups.ExpireSilentMembers(c, 0)
	return c.ListenAddrs(), func() {
		expiring()
		c.Close()
	}, nil
}
