package main

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paylane/paylane/libs/events"
)

// event is one record read from the broker.
type event struct {
	ID, Type, TenantID, DataID string
}

// eventLog reads every topic from its start for the whole run and keeps
// the events by tenant.
type eventLog struct {
	cl     *kgo.Client
	cancel context.CancelFunc
	done   chan struct{}

	mu       sync.Mutex
	byTenant map[string][]event
}

func startEventLog(brokers []string) *eventLog {
	ctx, cancel := context.WithCancel(context.Background())
	l := &eventLog{cancel: cancel, done: make(chan struct{}), byTenant: map[string][]event{}}
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ConsumeTopics(events.AllTopics()...),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		close(l.done)
		return l
	}
	l.cl = cl
	go l.read(ctx)
	return l
}

func (l *eventLog) read(ctx context.Context) {
	defer close(l.done)
	for ctx.Err() == nil {
		fetches := l.cl.PollFetches(ctx)
		fetches.EachRecord(func(r *kgo.Record) {
			var env events.Envelope
			if json.Unmarshal(r.Value, &env) != nil {
				return
			}
			var data struct {
				ID string `json:"id"`
			}
			_ = json.Unmarshal(env.Data, &data)
			l.mu.Lock()
			l.byTenant[env.TenantID] = append(l.byTenant[env.TenantID], event{ID: env.ID, Type: env.Type, TenantID: env.TenantID, DataID: data.ID})
			l.mu.Unlock()
		})
	}
}

// of returns the tenant's events read so far.
func (l *eventLog) of(tenant string) []event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]event(nil), l.byTenant[tenant]...)
}

func (l *eventLog) close() {
	l.cancel()
	<-l.done
	if l.cl != nil {
		l.cl.Close()
	}
}
