package brokergroups_test

import (
	"context"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/paylane/paylane/libs/testkit/brokergroups"
)

const (
	topic = "t"
	group = "g"
)

// joinAndDie sends a JoinGroup of a new member of group to the broker at
// addr and closes the connection at once, as a consumer killed while
// joining: the broker adds the member but cannot answer it.
func joinAndDie(t *testing.T, addr string) {
	t.Helper()
	meta := kmsg.ConsumerMemberMetadata{Version: 0, Topics: []string{topic}}
	req := kmsg.NewPtrJoinGroupRequest()
	req.SetVersion(1)
	req.Group = group
	req.SessionTimeoutMillis = 6_000
	req.RebalanceTimeoutMillis = 3_000
	req.ProtocolType = "consumer"
	for _, name := range []string{"range", "roundrobin"} {
		p := kmsg.NewJoinGroupRequestProtocol()
		p.Name, p.Metadata = name, meta.AppendTo(nil)
		req.Protocols = append(req.Protocols, p)
	}
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Write(kmsg.NewRequestFormatter(kmsg.FormatterClientID("doomed")).AppendRequest(nil, req, 1)); err != nil {
		t.Fatal(err)
	}
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
}

// A member that died waiting in JoinGroup is given partitions by the
// rebalance it was part of. Whether kfake then starts its session timer is
// chance (it does when the join response still fits in the dead
// connection's queue), so a consumer dies while joining four times: each
// time the dead member leaves the group within its session timeout and the
// live member consumes every message, those of the dead member's partitions
// included.
func TestDeadJoinersLoseTheirPartitions(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, topic))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	defer brokergroups.ExpireSilentMembers(c, 3*time.Second)()
	addr := c.ListenAddrs()[0]
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	r := kafka.NewReader(kafka.ReaderConfig{Brokers: []string{addr}, GroupID: group, GroupTopics: []string{topic},
		StartOffset: kafka.FirstOffset, MaxWait: 200 * time.Millisecond, HeartbeatInterval: time.Second,
		SessionTimeout: 6 * time.Second, RebalanceTimeout: 3 * time.Second})
	defer r.Close()
	var mu sync.Mutex
	got := map[string]bool{}
	go func() {
		for {
			m, err := r.ReadMessage(ctx)
			if err != nil {
				return
			}
			mu.Lock()
			got[string(m.Value)] = true
			mu.Unlock()
		}
	}()
	if _, err := c.WaitGroupStable(ctx, group, 1); err != nil {
		t.Fatalf("the live member never settled: %v", err)
	}
	w := &kafka.Writer{Addr: kafka.TCP(addr), Balancer: &kafka.Hash{}, BatchTimeout: time.Millisecond}
	defer w.Close()

	const perRound = 30
	for round := range 4 {
		joinAndDie(t, addr)
		info, err := c.WaitGroupStable(ctx, group, 2)
		if err != nil {
			t.Fatalf("round %d: the group never took the dead joiner in: %v", round, err)
		}
		if info.Members[0].NumAssigned() == 0 || info.Members[1].NumAssigned() == 0 {
			t.Fatalf("round %d: a member without partitions: %+v", round, info.Members)
		}
		for i := range perRound {
			v := fmt.Sprint(round*perRound + i)
			if err := w.WriteMessages(ctx, kafka.Message{Topic: topic, Key: []byte(v), Value: []byte(v)}); err != nil {
				t.Fatal(err)
			}
		}
		// Within the group's longest join wait (6 s session plus 3 s
		// rebalance timeout, above the 3 s asked for) and the rebalance
		// that follows, the dead member is gone and the live member has
		// every message.
		roundCtx, roundCancel := context.WithTimeout(ctx, 20*time.Second)
		_, err = c.WaitGroupInfo(roundCtx, group, func(g *kfake.GroupInfo) bool {
			mu.Lock()
			defer mu.Unlock()
			return g != nil && g.State == "Stable" && len(g.Members) == 1 && len(got) == (round+1)*perRound
		})
		roundCancel()
		if err != nil {
			mu.Lock()
			n := len(got)
			mu.Unlock()
			t.Fatalf("round %d: consumed %d of %d messages; the group: %+v", round, n, (round+1)*perRound, c.GroupInfo(group).Members)
		}
	}
}
