package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
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
		{"postgres", "Postgres restarted (fast shutdown, start again on the same port) under load", runPostgres},
		{"identity", "identity-svc down for 10 s: resolved tokens work until their cache entry expires, new ones get 503", runIdentity},
		{"webhook", "receivers failing every request: retries on the (compressed) schedule, disabled at exactly 50 failures, reset by a success", runWebhook},
		{"ratelimit", "two gateway replicas sharing Redis: a token limited to 60 a minute gets exactly 60 answers", runRateLimit},
		{"poison", "one tenant's two 5,000-row batches, a third of their rows poisoned: another tenant's batch completes meanwhile, the poisoned rows are row errors", runPoison},
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
	r := t.check(ctx)
	r.writes = t.allWrites()
	return r, nil
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
	var before, atHeal int
	var atHealEach string
	r, err := underLoad(ctx, e, "kafka", 3*time.Second, 5*time.Second, func(ctx context.Context) error {
		before, _ = e.outboxRows(ctx)
		e.logf("kafka: dropping every broker connection for 60 s")
		e.proxy.setDown(true)
		defer func() {
			atHeal, atHealEach = e.outboxRows(ctx)
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
	if err != nil {
		return r, err
	}
	// Background work (the scheduler, SMS status events) keeps adding rows;
	// drained means empty at some point within 30 s.
	after, afterEach := e.outboxRows(ctx)
	for deadline := time.Now().Add(30 * time.Second); after > 0 && time.Now().Before(deadline); {
		time.Sleep(time.Second)
		after, afterEach = e.outboxRows(ctx)
	}
	r.note("outbox rows waiting: %d before the outage, %d when it healed (%s), %d after the checks (%s)",
		before, atHeal, atHealEach, after, afterEach)
	if atHeal <= before {
		r.fail("the outboxes did not grow while the broker was unreachable")
	}
	if after > 0 {
		r.fail("the outboxes did not drain: %d rows still waiting", after)
	}
	return r, nil
}

// runPostgres restarts Postgres under load: requests meanwhile get an
// envelope (503 service_unavailable), none hangs, the pools reconnect.
func runPostgres(ctx context.Context, e *env) (result, error) {
	r, err := underLoad(ctx, e, "postgres", 5*time.Second, 10*time.Second, func(ctx context.Context) error {
		e.logf("postgres: restarting (fast)")
		began := time.Now()
		if err := e.info.Postgres.Restart(ctx); err != nil {
			return err
		}
		e.logf("postgres: accepting connections again after %s", time.Since(began).Round(time.Millisecond))
		return nil
	})
	if err != nil {
		return r, err
	}
	r.expectOnly5xx(http.StatusServiceUnavailable)
	return r, nil
}

// expectOnly5xx fails the scenario when a write got a 5xx other than
// status (or one without the envelope).
func (r *result) expectOnly5xx(status int) {
	n := 0
	for _, w := range r.writes {
		if w.ans.status >= 500 && (w.ans.status != status || w.ans.errorCode() == "") {
			n++
		}
	}
	if n > 0 {
		r.fail("writes answered a 5xx other than %d with an envelope: %d", status, n)
	}
}

// runIdentity holds identity-svc down for 10 s. A token resolved just
// before keeps working until its gateway cache entry expires
// (TOKEN_CACHE_TTL 5 s), then gets 503; a token minted before but never
// used gets 503 at once. Nothing gets 401.
func runIdentity(ctx context.Context, e *env) (result, error) {
	var probe identityProbe
	r, err := underLoad(ctx, e, "identity", 3*time.Second, 3*time.Second, func(ctx context.Context) error {
		t, err := e.newTenant(ctx, "chaos identity probe")
		if err != nil {
			return err
		}
		t.rc.close()
		unused, err := e.mint(ctx, t.id)
		if err != nil {
			return err
		}
		// Resolve the tenant's token now: its cache entry lives 5 s.
		if a := t.api(ctx, http.MethodGet, "/api/v1/contacts", "", nil); a.status != http.StatusOK {
			return fmt.Errorf("identity probe before the outage: %d %s", a.status, a.body)
		}
		if err := e.info.Processes.Hold("identity-svc"); err != nil {
			return err
		}
		defer func() {
			if err := e.info.Processes.Release("identity-svc"); err != nil {
				e.logf("releasing identity-svc: %v", err)
			}
		}()
		probe.first = t.api(ctx, http.MethodGet, "/api/v1/contacts", "", nil).status
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
			probe.resolved = append(probe.resolved, t.api(ctx, http.MethodGet, "/api/v1/contacts", "", nil))
			probe.unused = append(probe.unused, do(ctx, e.hc, e.info.GatewayURL, unused, http.MethodGet, "/api/v1/contacts", "", nil))
		}
		return nil
	})
	if err != nil {
		return r, err
	}
	probe.judge(&r)
	r.expectOnly5xx(http.StatusServiceUnavailable)
	return r, nil
}

// identityProbe is what the tokens got while identity-svc was down.
type identityProbe struct {
	first            int // the resolved token, right after identity-svc went down
	resolved, unused []answer
}

func (p identityProbe) judge(r *result) {
	r.note("resolved token during the outage: first %d, then %s", p.first, statuses(p.resolved))
	r.note("unused token during the outage: %s", statuses(p.unused))
	if p.first != http.StatusOK {
		r.fail("a token resolved just before the outage got %d, want 200 from the gateway's cache", p.first)
	}
	expired := false
	for _, a := range p.resolved {
		switch {
		case a.status == http.StatusOK && expired:
			r.fail("the resolved token answered 200 again after a 503 while identity-svc was down")
		case a.status == http.StatusServiceUnavailable && a.errorCode() == "service_unavailable":
			expired = true
		case a.status != http.StatusOK:
			r.fail("the resolved token got %d %s, want 200 or 503 service_unavailable", a.status, a.errorCode())
		}
	}
	if !expired {
		r.fail("the resolved token never got 503 in 10 s, want it once its 5 s cache entry expired")
	}
	for _, a := range p.unused {
		if a.status != http.StatusServiceUnavailable || a.errorCode() != "service_unavailable" {
			r.fail("a token not resolved before the outage got %d %s, want 503 service_unavailable", a.status, a.errorCode())
			break
		}
	}
}

// statuses summarises answers as status×count in order of first
// appearance, e.g. "200×19 503×21".
func statuses(as []answer) string {
	var order []int
	counts := map[int]int{}
	for _, a := range as {
		if counts[a.status] == 0 {
			order = append(order, a.status)
		}
		counts[a.status]++
	}
	parts := make([]string, len(order))
	for i, s := range order {
		parts[i] = fmt.Sprintf("%d×%d", s, counts[s])
	}
	return strings.Join(parts, " ")
}
