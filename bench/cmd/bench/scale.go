package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/bench/internal/load"
	"github.com/paylane/paylane/bench/internal/report"
	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/libs/authz"
)

// Targets of the data-growth benchmark (issue "Performance, round two").
const (
	scaleConns    = 16
	scaleMaxP99   = 50 * time.Millisecond
	scaleMaxRatio = 2.0
	// scaleReference is the size of the tenant the large one is compared
	// with; scaleSmall tenants of scaleSmallRows rows each are present too.
	scaleReference = 10_000
	scaleSmall     = 3
	scaleSmallRows = 100
	// scaleDeepPage is the page of 100 the deep-list request reads (or the
	// tenant's last page, when it has fewer).
	scaleDeepPage = 500
	// scaleRecentDays is the date range of the receivables request:
	// created_since that many days ago.
	scaleRecentDays = 30
)

// scaleTenant is a tenant of the data-growth benchmark and its token.
type scaleTenant struct {
	loadedTenant
	name  string
	token string
}

// scaleRequest is one request of the benchmark, built for a tenant.
type scaleRequest struct {
	name  string
	build func(t scaleTenant, d scaleData) load.Request
}

// scaleRows is the data-growth benchmark: a tenant of -scale-rows contacts
// and as many receivables next to one of scaleReference and a few small
// ones, all loaded with COPY into the services' databases; then each list
// request on the large tenant and on the reference tenant.
func (b *bench) scaleRows(ctx context.Context) (report.Table, error) {
	d := newScaleData()
	sizes := []int{b.cfg.scaleRows, scaleReference}
	for range scaleSmall {
		sizes = append(sizes, scaleSmallRows)
	}
	tenants := make([]scaleTenant, len(sizes))
	for i, n := range sizes {
		t, err := b.scaleTenant(ctx, fmt.Sprintf("Bench scale %d (%d)", n, i))
		if err != nil {
			return report.Table{}, err
		}
		tenants[i] = t
	}
	start := time.Now()
	if err := b.loadScale(ctx, d, tenants, sizes); err != nil {
		return report.Table{}, err
	}
	b.logf("scale: loaded %d tenants (%v rows each of contacts and receivables) in %s", len(sizes), sizes,
		time.Since(start).Round(time.Millisecond))
	start = time.Now()
	for _, db := range []string{"contacts", "transactions"} {
		if err := b.vacuum(ctx, db); err != nil {
			return report.Table{}, err
		}
	}
	b.logf("scale: VACUUM ANALYZE in %s", time.Since(start).Round(time.Millisecond))
	large, ref := tenants[0], tenants[1]
	table := report.Table{Header: []string{"request", "tenant", "req/s", "p50", "p99", "p99 ratio to 10k",
		"CPU per request (Postgres)", "target", "result"}}
	for _, r := range b.scaleRequests() {
		for _, t := range []scaleTenant{ref, large} {
			if err := b.scaleProbe(ctx, r, t, d); err != nil {
				return report.Table{}, err
			}
		}
		small, err := b.loadRunWith(ctx, r.name+" ("+ref.name+")", http.StatusOK, r.build(ref, d), scaleConns, b.cfg.duration)
		if err != nil {
			return report.Table{}, err
		}
		big, err := b.loadRunWith(ctx, r.name+" ("+large.name+")", http.StatusOK, r.build(large, d), scaleConns, b.cfg.duration)
		if err != nil {
			return report.Table{}, err
		}
		table.Rows = append(table.Rows, scaleRow(r.name, ref.name, small, measured{}), scaleRow(r.name, large.name, big, small))
	}
	return table, nil
}

// scaleRow is one line of the table: ref is the reference tenant's run of
// the same request (zero for the reference's own line). The CPU per
// request (this process with the devstack, Postgres) moves least with the
// host's other load.
func scaleRow(request, tenant string, m, ref measured) []string {
	p99 := m.Percentile(99)
	conds := []bool{m.Failures() == 0, m.OK > 0, p99 <= scaleMaxP99}
	ratio, target := "-", fmt.Sprintf("p99 ≤ %d ms", scaleMaxP99.Milliseconds())
	if ref.OK > 0 {
		target += fmt.Sprintf(", ≤ %.0f× the 10k tenant", scaleMaxRatio)
	}
	if ref.OK > 0 && m.OK > 0 {
		r := float64(p99) / float64(ref.Percentile(99))
		ratio = fmt.Sprintf("%.2f", r)
		conds = append(conds, r <= scaleMaxRatio)
	}
	rate := fmt.Sprintf("%.0f", m.PerSecond())
	p50s, p99s := report.Ms(m.Percentile(50)), report.Ms(p99)
	if m.OK == 0 {
		p50s, p99s = "-", "-"
	}
	switch f := m.Failures(); {
	case f > 0:
		rate += fmt.Sprintf(" (%d failed: %s)", f, statuses(m.Statuses))
	case m.OK == 0:
		rate += " (no answer within the window)"
	}
	cpu := "-"
	if m.OK > 0 {
		cpu = fmt.Sprintf("%.2f ms (%.2f)", ms(m.CPUPerRequest()), ms(m.PostgresCPUPerRequest()))
	}
	return []string{request, tenant, rate, p50s, p99s, ratio, cpu, target, string(report.Judge(conds...))}
}

// scaleTenant creates a tenant with the AI gateway on (resolve-contact),
// a request limit the benchmark never reaches, and a token of every
// ability.
func (b *bench) scaleTenant(ctx context.Context, name string) (scaleTenant, error) {
	admin := client.NewAdmin(b.env.AdminURL, b.env.AdminToken, b.client)
	t, err := admin.CreateTenant(ctx, client.TenantInput{Name: &name})
	if err != nil {
		return scaleTenant{}, fmt.Errorf("creating tenant %q: %w", name, err)
	}
	on, limit := true, benchRequestsPerMinute
	if _, err := admin.UpdateTenant(ctx, t.ID, client.TenantInput{
		Flags:  &client.FlagsInput{AIGateway: &on},
		Limits: &client.LimitsInput{APIRequestsPerMinute: &limit},
	}); err != nil {
		return scaleTenant{}, fmt.Errorf("configuring tenant %q: %w", name, err)
	}
	tok, err := admin.CreateToken(ctx, t.ID, client.TokenInput{Name: "bench scale", Abilities: authz.All()})
	if err != nil {
		return scaleTenant{}, fmt.Errorf("creating the token of tenant %q: %w", name, err)
	}
	return scaleTenant{loadedTenant: loadedTenant{id: t.ID}, token: tok.Token}, nil
}

// loadScale fills the tenants, tenants[i] with sizes[i] contacts and as
// many receivables: contacts-svc's and transactions-svc's databases are
// loaded at the same time, each over its own connection.
func (b *bench) loadScale(ctx context.Context, d scaleData, tenants []scaleTenant, sizes []int) error {
	now := time.Now()
	for i := range tenants {
		tenants[i].contacts = d.contactIDs(sizes[i], now)
		tenants[i].name = fmt.Sprintf("%dk", sizes[i]/1000)
		if sizes[i] < 1000 {
			tenants[i].name = strconv.Itoa(sizes[i])
		}
	}
	var (
		wg         sync.WaitGroup
		errC, errR error
	)
	wg.Go(func() {
		errC = b.withConn(ctx, "contacts", func(conn *pgx.Conn) error {
			for i, t := range tenants {
				if err := d.loadContacts(ctx, conn, t.id, t.contacts, now); err != nil {
					return fmt.Errorf("loading %d contacts: %w", sizes[i], err)
				}
			}
			return nil
		})
	})
	wg.Go(func() {
		errR = b.withConn(ctx, "transactions", func(conn *pgx.Conn) error {
			for i, t := range tenants {
				if err := d.loadReceivables(ctx, conn, t.id, t.contacts, sizes[i], now); err != nil {
					return fmt.Errorf("loading %d receivables: %w", sizes[i], err)
				}
			}
			return nil
		})
	})
	wg.Wait()
	return errors.Join(errC, errR)
}

// withConn runs fn on a connection of the superuser to db.
func (b *bench) withConn(ctx context.Context, db string, fn func(*pgx.Conn) error) error {
	conn, err := pgx.Connect(ctx, b.env.SuperuserDSN(db))
	if err != nil {
		return fmt.Errorf("connecting to %s: %w", db, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return fn(conn)
}

// vacuum runs VACUUM ANALYZE in db, as autovacuum would within its naptime
// of a bulk load (it also sets the visibility map index-only scans read).
func (b *bench) vacuum(ctx context.Context, db string) error {
	return b.withConn(ctx, db, func(conn *pgx.Conn) error {
		if _, err := conn.Exec(ctx, "VACUUM ANALYZE"); err != nil {
			return fmt.Errorf("vacuuming %s: %w", db, err)
		}
		return nil
	})
}

// scaleRequests are the requests measured on both tenants; the name
// search last, as the slowest (its statements may outlive the run).
func (b *bench) scaleRequests() []scaleRequest {
	get := func(t scaleTenant, path func(worker int, seq uint64) string) load.Request {
		return func(ctx context.Context, worker int, seq uint64) (*http.Request, error) {
			return newRequest(ctx, http.MethodGet, b.env.GatewayURL+path(worker, seq), nil, t.token, "")
		}
	}
	// pick is a live contact's index, different per request.
	pick := func(n, worker int, seq uint64) int {
		i := int((uint64(worker)*7919 + seq*104729) % uint64(n))
		if scaleDeleted(i) {
			i--
		}
		return i
	}
	since := url.QueryEscape(time.Now().Add(-scaleRecentDays * 24 * time.Hour).UTC().Format(time.RFC3339))
	return []scaleRequest{
		{"GET /contacts (first page)", func(t scaleTenant, _ scaleData) load.Request {
			return get(t, func(int, uint64) string { return "/api/v1/contacts" })
		}},
		{fmt.Sprintf("GET /contacts?per_page=100&page=%d (or the last page)", scaleDeepPage), func(t scaleTenant, _ scaleData) load.Request {
			page := min(scaleDeepPage, scaleLive(len(t.contacts))/100)
			return get(t, func(int, uint64) string { return "/api/v1/contacts?per_page=100&page=" + strconv.Itoa(page) })
		}},
		{"GET /contacts?external_id= (filter)", func(t scaleTenant, _ scaleData) load.Request {
			return get(t, func(w int, s uint64) string {
				return "/api/v1/contacts?external_id=" + scaleExternalID(pick(len(t.contacts), w, s))
			})
		}},
		{"GET /receivables?status=pending", func(t scaleTenant, _ scaleData) load.Request {
			return get(t, func(int, uint64) string { return "/api/v1/receivables?status=pending" })
		}},
		{fmt.Sprintf("GET /receivables?created_since=(%d days ago)", scaleRecentDays), func(t scaleTenant, _ scaleData) load.Request {
			return get(t, func(int, uint64) string { return "/api/v1/receivables?created_since=" + since })
		}},
		{"POST /gateway/resolve-contact (search by name)", func(t scaleTenant, d scaleData) load.Request {
			return func(ctx context.Context, worker int, seq uint64) (*http.Request, error) {
				first, last := d.name(pick(len(t.contacts), worker, seq))
				body, _ := json.Marshal(map[string]string{"name": first + " " + last})
				return newRequest(ctx, http.MethodPost, b.env.GatewayURL+"/api/v1/gateway/resolve-contact", body, t.token, "")
			}
		}},
	}
}

// scaleProbe sends r once for t and logs what it answered (the size of
// the page and meta.total), so the log shows each request does real work.
func (b *bench) scaleProbe(ctx context.Context, r scaleRequest, t scaleTenant, d scaleData) error {
	req, err := r.build(t, d)(ctx, 0, 0)
	if err != nil {
		return err
	}
	resp, err := b.client.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", r.name, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s: %w", r.name, err)
	}
	if resp.StatusCode != http.StatusOK {
		// The load run counts such answers as failures.
		b.logf("scale: %s (%s) answers %d %s", r.name, t.name, resp.StatusCode, body)
		return nil
	}
	var out struct {
		Data json.RawMessage `json:"data"`
		Meta map[string]any  `json:"meta"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		return fmt.Errorf("%s: reading the answer: %w", r.name, err)
	}
	var items []json.RawMessage
	n := "an object"
	if json.Unmarshal(out.Data, &items) == nil {
		n = fmt.Sprintf("%d items", len(items))
	}
	b.logf("scale: %s (%s) answers %s, meta %v", r.name, t.name, n, out.Meta)
	return nil
}
