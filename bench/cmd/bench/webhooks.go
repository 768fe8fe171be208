package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/paylane/paylane/bench/internal/baseline"
	"github.com/paylane/paylane/bench/internal/load"
	"github.com/paylane/paylane/bench/internal/receiver"
	"github.com/paylane/paylane/bench/internal/report"
)

// Sizes and targets of benchmark 4.
const (
	webhookBurst    = 10_000                 // events committed at once (10 transactions)
	webhookPaced    = 5_000                  // events committed at webhookRate
	webhookRate     = 1_000                  // events per second offered in the paced run
	webhookMinRate  = 3_000.0                // burst deliveries per second (issue 23, round two)
	webhookMaxP99   = 250 * time.Millisecond // commit → receipt at webhookRate
	webhookDrainMax = time.Minute
)

// webhookRows is benchmark 4: contact.created events fanned out by
// webhook-svc to one local HTTPS receiver. The events are committed to
// contacts-svc's outbox directly (outbox.Add, as contacts-svc does), so the
// run measures the fan-out path alone — outbox relay, broker, webhook-svc's
// consumer and dispatcher, HTTPS delivery — not the contacts write path
// (benchmark 2). Two runs: a burst of 10,000 events (deliveries per second)
// and 5,000 events offered at 1,000 per second (latency from each event's
// commit to its receipt). The baseline is this process POSTing the same
// receiver over 64 kept-alive connections.
func (b *bench) webhookRows(ctx context.Context, _ *baseline.Server) ([]report.Row, error) {
	row := report.Row{
		Benchmark: "4 webhooks: contact events → 1 HTTPS receiver",
		Target:    "burst ≥ 3,000 deliveries/s; at 1,000/s p99 commit → receipt ≤ 250 ms",
	}
	if _, ok := b.env.Services["webhook"]; !ok {
		row.Figure, row.Baseline, row.Ratio, row.Verdict = "n/a (webhook-svc not in the devstack)", "-", "-", report.NA
		return []report.Row{row}, nil
	}
	rx, err := receiver.Start(b.env.CertFile, b.env.KeyFile)
	if err != nil {
		return nil, err
	}
	defer rx.Close()
	tenantID, err := b.webhookTenant(ctx, rx.URL)
	if err != nil {
		return nil, err
	}
	bare, err := b.loadRun(ctx, "webhook baseline (POST to the receiver)", http.StatusOK, b.receiverPosts(rx.URL))
	if err != nil {
		return nil, err
	}
	burst, err := b.fanOut(ctx, rx, tenantID, webhookBurst, 0)
	if err != nil {
		return nil, err
	}
	paced, err := b.fanOut(ctx, rx, tenantID, webhookPaced, webhookRate)
	if err != nil {
		return nil, err
	}
	row.Figure = fmt.Sprintf("burst of %d: %s; %d offered at %d/s: %s", webhookBurst, burst, webhookPaced, webhookRate, paced)
	row.Baseline = fmt.Sprintf("%.0f POST/s, p99 %.1f ms", bare.PerSecond(), ms(bare.Percentile(99)))
	row.Ratio = report.Ratio(burst.perSecond(), bare.PerSecond())
	row.Verdict = report.Judge(burst.complete(), paced.complete(),
		burst.perSecond() >= webhookMinRate, paced.percentile(99) <= webhookMaxP99)
	return []report.Row{row}, nil
}

// receiverPosts posts a delivery-sized JSON body to the receiver.
func (b *bench) receiverPosts(url string) load.Request {
	body := []byte(`{"id":"baseline","type":"contact.created","created_at":"2026-01-01T00:00:00.000Z",` +
		`"data":{"id":"01JBASELINE0000000000000000","first_name":"Bench","last_name":"Webhook","phone":"+14155550100"}}`)
	return func(ctx context.Context, _ int, _ uint64) (*http.Request, error) {
		return newRequest(ctx, http.MethodPost, url, body, "", "")
	}
}
