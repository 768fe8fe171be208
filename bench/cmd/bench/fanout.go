package main

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/bench/internal/load"
	"github.com/paylane/paylane/bench/internal/receiver"
	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/outbox"
)

// webhookTenant creates a tenant of its own for the webhook benchmark (so
// events of the other benchmarks' tenant never reach its endpoint), a token,
// and an endpoint subscribed to contact.created that delivers to url. It
// returns the tenant's id.
func (b *bench) webhookTenant(ctx context.Context, url string) (string, error) {
	admin := client.NewAdmin(b.env.AdminURL, b.env.AdminToken, b.client)
	name := "Bench webhooks"
	t, err := admin.CreateTenant(ctx, client.TenantInput{Name: &name})
	if err != nil {
		return "", fmt.Errorf("creating the webhook tenant: %w", err)
	}
	tok, err := admin.CreateToken(ctx, t.ID, client.TokenInput{Name: "bench webhooks", Abilities: authz.All()})
	if err != nil {
		return "", fmt.Errorf("creating the webhook tenant's token: %w", err)
	}
	body := []byte(`{"name":"bench receiver","url":"` + url + `","subscribed_events":["contact.created"]}`)
	req, err := newRequest(ctx, http.MethodPost, b.env.GatewayURL+"/api/v1/webhook-endpoints", body, tok.Token, "")
	if err != nil {
		return "", err
	}
	resp, err := b.client.Do(req)
	if err != nil {
		return "", fmt.Errorf("creating the webhook endpoint: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		return "", fmt.Errorf("creating the webhook endpoint: status %d", resp.StatusCode)
	}
	return t.ID, nil
}

// fanned is what one fan-out run measured.
type fanned struct {
	sent      int
	latencies []time.Duration // commit → receipt of the events received, sorted
	span      time.Duration   // first commit → last receipt
	// cpu and postgres are the CPU time this process (devstack, broker,
	// receiver, harness) and Postgres used together, and Postgres alone,
	// from before the first commit until the last receipt was seen.
	cpu, postgres time.Duration
}

func (f fanned) complete() bool { return len(f.latencies) == f.sent }

func (f fanned) perSecond() float64 {
	if f.span <= 0 {
		return 0
	}
	return float64(len(f.latencies)) / f.span.Seconds()
}

func (f fanned) percentile(p float64) time.Duration { return load.Percentile(f.latencies, p) }

// String is the run as the table shows it.
func (f fanned) String() string {
	s := fmt.Sprintf("%.0f deliveries/s, p50 %.0f ms, p99 %.0f ms", f.perSecond(),
		ms(f.percentile(50)), ms(f.percentile(99)))
	if n := len(f.latencies); n > 0 && f.cpu > 0 {
		s += fmt.Sprintf(", CPU %.2f ms/delivery (Postgres %.2f)", ms(f.cpu)/float64(n), ms(f.postgres)/float64(n))
	}
	if !f.complete() {
		s += fmt.Sprintf(", only %d of %d received", len(f.latencies), f.sent)
	}
	return s
}

// fanOut commits n contact.created events of tenantID to contacts-svc's
// outbox — all at once in 10 transactions when rate is 0, else rate per
// second in 20 commits a second — and waits for their deliveries.
func (b *bench) fanOut(ctx context.Context, rx *receiver.Receiver, tenantID string, n, rate int) (fanned, error) {
	name := fmt.Sprintf("webhooks: %d events", n)
	if rate > 0 {
		name += fmt.Sprintf(" at %d/s", rate)
	}
	b.logf("%s", name)
	conn, err := pgx.Connect(ctx, b.env.SuperuserDSN("contacts"))
	if err != nil {
		return fanned{}, fmt.Errorf("connecting to contacts: %w", err)
	}
	defer conn.Close(ctx)
	chunks, every := 10, time.Duration(0)
	if rate > 0 {
		chunks, every = n*20/rate, 50*time.Millisecond
	}
	profiled := b.profile(ctx, b.env.Internal["gateway"], fmt.Sprintf("devstack-webhooks-%d", rate), 15)
	committed := make(map[string]time.Time, n)
	var all []string
	cpuBefore, pgBefore, _, err := b.cpu()
	if err != nil {
		return fanned{}, err
	}
	start := time.Now()
	for i := range chunks {
		if wait := time.Until(start.Add(time.Duration(i) * every)); wait > 0 {
			time.Sleep(wait)
		}
		batch, at, err := commitEvents(ctx, conn, tenantID, n/chunks)
		if err != nil {
			return fanned{}, err
		}
		for _, id := range batch {
			committed[id] = at
		}
		all = append(all, batch...)
	}
	f := measureFanOut(committed, rx.WaitFor(ctx, all, webhookDrainMax), start)
	cpuAfter, pgAfter, _, err := b.cpu()
	if err != nil {
		return fanned{}, err
	}
	f.cpu, f.postgres = cpuAfter-cpuBefore, pgAfter-pgBefore
	b.logf("%s: %s", name, f)
	return f, <-profiled
}

// measureFanOut pairs commits with arrivals.
func measureFanOut(committed, arrived map[string]time.Time, start time.Time) fanned {
	f := fanned{sent: len(committed)}
	var last time.Time
	for id, at := range arrived {
		f.latencies = append(f.latencies, at.Sub(committed[id]))
		if at.After(last) {
			last = at
		}
	}
	slices.Sort(f.latencies)
	if !last.IsZero() {
		f.span = last.Sub(start)
	}
	return f
}

// commitEvents adds n contact.created events to the outbox in one
// transaction, in one statement (outbox.AddMany, as a bulk writer does, so
// the harness's own commits stay out of the fan-out figures), and returns
// their ids and the commit time.
func commitEvents(ctx context.Context, conn *pgx.Conn, tenantID string, n int) ([]string, time.Time, error) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("beginning: %w", err)
	}
	defer tx.Rollback(ctx)
	batch := make([]string, 0, n)
	envs := make([]events.Envelope, 0, n)
	for i := range n {
		data := map[string]any{"id": ids.New(), "first_name": "Bench", "last_name": fmt.Sprint("Webhook ", i)}
		env, err := events.New(events.TypeContactCreated, tenantID, "", data)
		if err != nil {
			return nil, time.Time{}, err
		}
		envs = append(envs, env)
		batch = append(batch, env.ID)
	}
	if err := outbox.AddMany(ctx, tx, envs); err != nil {
		return nil, time.Time{}, err
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, time.Time{}, fmt.Errorf("committing events: %w", err)
	}
	return batch, time.Now(), nil
}
