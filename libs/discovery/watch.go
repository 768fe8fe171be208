package discovery

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/consul/api"
)

// watch is the cache of one service's healthy instances.
type watch struct {
	ready     chan struct{} // closed after Consul's first answer, good or bad
	readyOnce sync.Once

	mu   sync.RWMutex
	urls []string
	err  error // the last query's failure; urls stay as they were

	next atomic.Uint64
}

func (w *watch) markReady() { w.readyOnce.Do(func() { close(w.ready) }) }

func (w *watch) set(urls []string) {
	w.mu.Lock()
	w.urls, w.err = urls, nil
	w.mu.Unlock()
	w.markReady()
}

func (w *watch) fail(err error) {
	w.mu.Lock()
	w.err = err
	w.mu.Unlock()
	w.markReady()
}

func (w *watch) pick(service string) (string, error) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	if len(w.urls) > 0 {
		n := w.next.Add(1) - 1
		return w.urls[n%uint64(len(w.urls))], nil
	}
	if w.err != nil {
		return "", fmt.Errorf("resolving %q through consul: %w", service, w.err)
	}
	return "", fmt.Errorf("resolving %q: %w", service, ErrNoInstances)
}

// run keeps w current with blocking queries until c is closed, following
// Consul's advice: reset the index when it goes backwards, never wait on
// index 0 after the first answer, back off after failures.
func (c *Consul) run(service string, w *watch) {
	defer c.wg.Done()
	var index uint64
	pause := c.opts.minRetry
	for c.ctx.Err() == nil {
		q := (&api.QueryOptions{WaitIndex: index, WaitTime: c.opts.wait}).WithContext(c.ctx)
		entries, meta, err := c.client.Health().Service(service, c.opts.tag, true, q)
		if err != nil {
			if c.ctx.Err() != nil {
				return
			}
			w.fail(err)
			c.opts.log.Warn("consul health query failed", "service", service, "retry_in", pause.String(), "error", err)
			if !c.sleep(pause) {
				return
			}
			pause = min(pause*2, c.opts.maxRetry)
			continue
		}
		pause = c.opts.minRetry
		w.set(c.urls(entries))
		index = nextIndex(index, meta.LastIndex)
	}
}

func nextIndex(previous, got uint64) uint64 {
	switch {
	case got < previous:
		return 0
	case got == 0:
		return 1
	default:
		return got
	}
}

func (c *Consul) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-c.ctx.Done():
		return false
	}
}

func (c *Consul) urls(entries []*api.ServiceEntry) []string {
	urls := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.Service == nil {
			continue
		}
		host := e.Service.Address
		if host == "" && e.Node != nil {
			host = e.Node.Address
		}
		if host == "" || e.Service.Port <= 0 {
			continue
		}
		urls = append(urls, c.opts.scheme+"://"+net.JoinHostPort(host, strconv.Itoa(e.Service.Port)))
	}
	slices.Sort(urls)
	return slices.Compact(urls)
}
