package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"syscall"
	"time"
)

// scenario is one fault under load.
type scenario struct {
	name, about string
	run         func(ctx context.Context, e *env) (result, error)
}

func scenarios() []scenario {
	return []scenario{
		{"kill", "kill -9 of a random service process, 10 times, 3 s apart", runKill},
		{"kafka", "the broker unreachable for 60 s (every connection dropped), then healed", runKafka},
	}
}

func scenarioNames() []string {
	var out []string
	for _, s := range scenarios() {
		out = append(out, s.name)
	}
	return out
}

func pickScenarios(list string) ([]scenario, error) {
	byName := map[string]scenario{}
	for _, s := range scenarios() {
		byName[s.name] = s
	}
	var out []scenario
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		s, ok := byName[n]
		if !ok {
			return nil, fmt.Errorf("unknown scenario %q (known: %s)", n, strings.Join(scenarioNames(), ", "))
		}
		out = append(out, s)
	}
	return out, nil
}

// loadWorkers is the number of concurrent writers of the steady load.
const loadWorkers = 3

// underLoad runs fault while a fresh tenant's load runs: the load starts,
// runs warmup, then fault runs; the load stops cool after fault returns.
// Then the checks run.
func underLoad(ctx context.Context, e *env, name string, warmup, cool time.Duration, fault func(ctx context.Context) error) (result, error) {
	t, err := e.newTenant(ctx, "chaos "+name)
	if err != nil {
		return result{}, err
	}
	defer t.rc.close()
	loadCtx, stopLoad := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { t.load(loadCtx, loadWorkers) })
	var faultErr error
	select {
	case <-time.After(warmup):
		faultErr = fault(ctx)
	case <-ctx.Done():
	}
	select {
	case <-time.After(cool):
	case <-ctx.Done():
	}
	stopLoad()
	wg.Wait()
	if faultErr != nil {
		return result{}, faultErr
	}
	e.logf("%s: load stopped, checking", name)
	return t.check(ctx), nil
}

// runKill kills a random supervised process (services and gateway) with
// SIGKILL ten times, 3 s apart; the supervisor restarts each.
func runKill(ctx context.Context, e *env) (result, error) {
	var killed []string
	r, err := underLoad(ctx, e, "kill", 3*time.Second, 3*time.Second, func(ctx context.Context) error {
		names := e.info.Processes.Names()
		for i := range 10 {
			if i > 0 {
				select {
				case <-time.After(3 * time.Second):
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			name := names[rand.IntN(len(names))]
			pid := e.info.Processes.PID(name)
			if err := e.info.Processes.Kill(name, syscall.SIGKILL); err != nil {
				// Still restarting from an earlier kill: kill another.
				e.logf("kill %s: %v", name, err)
				continue
			}
			killed = append(killed, fmt.Sprintf("%s(%d)", name, pid))
		}
		return nil
	})
	if err == nil {
		r.note("killed: %s", strings.Join(killed, " "))
	}
	return r, err
}

// runKafka drops every connection to the broker for 60 s: writes keep
// answering (the outboxes keep the events), which reach the broker once it
// is back.
func runKafka(ctx context.Context, e *env) (result, error) {
	return underLoad(ctx, e, "kafka", 3*time.Second, 5*time.Second, func(ctx context.Context) error {
		e.logf("kafka: dropping every broker connection for 60 s")
		e.proxy.setDown(true)
		defer func() {
			e.proxy.setDown(false)
			e.logf("kafka: broker reachable again")
		}()
		select {
		case <-time.After(60 * time.Second):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
}
