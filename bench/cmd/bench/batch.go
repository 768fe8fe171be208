package main

import (
	"context"
	"fmt"

	"github.com/paylane/paylane/bench/internal/baseline"
	"github.com/paylane/paylane/bench/internal/report"
)

// Sizes of benchmark 3.
const (
	batchContacts    = 10_000
	batchReceivables = 5_000
)

// batchRows is benchmark 3. Its baseline (one pgx CopyFrom of the same
// 10,000 contact rows into the bench database) is measured now; the
// product's figures need batch-svc (POST /api/v1/contacts/batch, then
// polling the batch until completed), which the devstack does not run yet:
// when it joins, its row is measured here against the same baseline.
func (b *bench) batchRows(ctx context.Context, _ *baseline.Server) ([]report.Row, error) {
	copied, err := baseline.Copy(ctx, b.env.SuperuserDSN(baseline.Database), b.env.DemoTenantID, batchContacts,
		func(int) string { return b.phones.take() })
	if err != nil {
		return nil, fmt.Errorf("batch baseline: %w", err)
	}
	b.logf("batch baseline: COPY of %d rows in %s", batchContacts, report.Seconds(copied))
	missing := "n/a (batch-svc not built yet)"
	if _, ok := b.env.Services["batch"]; ok {
		missing = "n/a (batch-svc is in the devstack; its benchmark is not written yet)"
	}
	return []report.Row{
		{
			Benchmark: "3 batch: 10,000 contacts submit → completed",
			Figure:    missing,
			Baseline:  fmt.Sprintf("COPY of %d rows: %s", batchContacts, report.Seconds(copied)),
			Ratio:     "-", Target: "≤ 1.5 s", Verdict: report.NA,
		},
		{
			Benchmark: fmt.Sprintf("3 batch: %d receivables with new contacts", batchReceivables),
			Figure:    missing, Baseline: "-", Ratio: "-", Target: "≤ 3 s", Verdict: report.NA,
		},
	}, nil
}
