// Package brokergroups expires the members of kfake's consumer groups that
// have gone silent, as a Kafka broker does at their session timeout.
//
// kfake starts a member's session timer only when its join response reaches
// it. A consumer that dies while its JoinGroup waits for a rebalance (a
// process killed during a restart of its group) never gets that response:
// it stays a member without a timer, the group's leader assigns it
// partitions, and nobody consumes them until the next rebalance, which may
// never come. Kafka expires such a member after its session timeout.
// ExpireSilentMembers does the same from outside the broker: it watches the
// requests that name a member and makes a member that names none for long
// enough leave the group, which rebalances its partitions to the live ones.
package brokergroups

import (
	"context"
	"sync"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// DefaultSilence is how long a member may stay silent before it is expired:
// longer than any wait of a live consumer of package events (a JoinGroup
// waits at most its 10 s rebalance timeout plus 5 s, a SyncGroup its 10 s
// session timeout plus 5 s; a stable member heartbeats every second).
const DefaultSilence = 30 * time.Second

// reaper is the state of one ExpireSilentMembers.
type reaper struct {
	mu     sync.Mutex
	groups map[string]time.Duration // group → the longest wait its joins allow (see note)
	heard  map[string]time.Time     // member id → last request naming it, or when first listed
}

// ExpireSilentMembers watches c's classic consumer groups and makes each
// member that sent no JoinGroup, SyncGroup, Heartbeat or OffsetCommit for
// silence (DefaultSilence when 0) leave its group; in a group whose members
// joined with longer timeouts, for their session plus rebalance timeout
// when that is longer (a live member may wait that long in JoinGroup, or
// between heartbeats). stop ends the watch.
func ExpireSilentMembers(c *kfake.Cluster, silence time.Duration) (stop func()) {
	if silence <= 0 {
		silence = DefaultSilence
	}
	r := &reaper{groups: map[string]time.Duration{}, heard: map[string]time.Time{}}
	for _, key := range []kmsg.Key{kmsg.JoinGroup, kmsg.SyncGroup, kmsg.Heartbeat, kmsg.OffsetCommit} {
		c.ControlKey(int16(key), func(req kmsg.Request) (kmsg.Response, error, bool) {
			r.note(req)
			return nil, nil, false // kfake handles it as usual
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		client := &kafka.Client{Addr: kafka.TCP(c.ListenAddrs()...), Timeout: 5 * time.Second}
		tick := time.NewTicker(silence / 10)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			for group, members := range r.silent(c, silence) {
				req := &kafka.LeaveGroupRequest{GroupID: group}
				for _, id := range members {
					req.Members = append(req.Members, kafka.LeaveGroupRequestMember{ID: id})
				}
				_, _ = client.LeaveGroup(ctx, req) // a failure is retried at the next tick
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// note records the group and member a request names.
func (r *reaper) note(req kmsg.Request) {
	var group, member string
	var wait time.Duration
	switch req := req.(type) {
	case *kmsg.JoinGroupRequest:
		group, member = req.Group, req.MemberID
		wait = time.Duration(req.SessionTimeoutMillis+req.RebalanceTimeoutMillis) * time.Millisecond
	case *kmsg.SyncGroupRequest:
		group, member = req.Group, req.MemberID
	case *kmsg.HeartbeatRequest:
		group, member = req.Group, req.MemberID
	case *kmsg.OffsetCommitRequest:
		group, member = req.Group, req.MemberID
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if group != "" {
		r.groups[group] = max(r.groups[group], wait)
	}
	if member != "" {
		r.heard[member] = time.Now()
	}
}

// silent returns, by group, the members of c's groups not heard of for
// silence, or for the group's longest join wait when that is longer. A member listed for the first time counts as heard of now (its
// first JoinGroup names no member id). Members no longer listed are
// forgotten.
func (r *reaper) silent(c *kfake.Cluster, silence time.Duration) map[string][]string {
	r.mu.Lock()
	groups := make(map[string]time.Duration, len(r.groups))
	for g, wait := range r.groups {
		groups[g] = max(silence, wait)
	}
	r.mu.Unlock()

	now := time.Now()
	listed := map[string]bool{}
	out := map[string][]string{}
	for g, silence := range groups {
		info := c.GroupInfo(g)
		if info == nil {
			continue
		}
		r.mu.Lock()
		for _, m := range info.Members {
			listed[m.MemberID] = true
			last, ok := r.heard[m.MemberID]
			switch {
			case !ok:
				r.heard[m.MemberID] = now
			case now.Sub(last) >= silence:
				out[g] = append(out[g], m.MemberID)
			}
		}
		r.mu.Unlock()
	}
	r.mu.Lock()
	for id := range r.heard {
		if !listed[id] && now.Sub(r.heard[id]) >= silence {
			delete(r.heard, id)
		}
	}
	r.mu.Unlock()
	return out
}
