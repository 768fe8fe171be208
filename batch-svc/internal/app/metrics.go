package app

import (
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paylane/paylane/batch-svc/internal/batch"
)

// Metrics are the workers' Prometheus series.
type Metrics struct {
	finished *prometheus.CounterVec
	rows     *prometheus.CounterVec
	chunk    *prometheus.HistogramVec
	retries  *prometheus.CounterVec
}

// NewMetrics registers the series on reg (nil: counted, not exposed).
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		finished: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "batch_batches_finished_total", Help: "Batches that reached a final state, by type and status.",
		}, []string{"type", "status"}),
		rows: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "batch_rows_total", Help: "Rows recorded, by type and outcome (succeeded, failed).",
		}, []string{"type", "outcome"}),
		chunk: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "batch_chunk_write_duration_seconds", Help: "Duration of a chunk's write through its owning service, retries included.",
			Buckets: prometheus.ExponentialBuckets(0.01, 2, 12),
		}, []string{"type"}),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "batch_chunk_retries_total", Help: "Chunk writes retried after a transient failure, by type.",
		}, []string{"type"}),
	}
	// Every type's series exist from the start at 0, so the dashboards'
	// rates over them are never empty.
	for _, t := range []batch.Type{batch.Contacts, batch.Receivables, batch.Payables} {
		for _, s := range []batch.Status{batch.Completed, batch.PartialFailure, batch.Failed} {
			m.finished.WithLabelValues(string(t), string(s))
		}
		m.rows.WithLabelValues(string(t), "succeeded")
		m.rows.WithLabelValues(string(t), "failed")
		m.retries.WithLabelValues(string(t))
	}
	if reg == nil {
		return m, nil
	}
	for _, c := range []prometheus.Collector{m.finished, m.rows, m.chunk, m.retries} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("registering batch metrics: %w", err)
		}
	}
	return m, nil
}

func (m *Metrics) observeChunk(t batch.Type, d time.Duration, succeeded, failed int) {
	if m == nil {
		return
	}
	m.chunk.WithLabelValues(string(t)).Observe(d.Seconds())
	m.rows.WithLabelValues(string(t), "succeeded").Add(float64(succeeded))
	m.rows.WithLabelValues(string(t), "failed").Add(float64(failed))
}

func (m *Metrics) retried(t batch.Type) {
	if m != nil {
		m.retries.WithLabelValues(string(t)).Inc()
	}
}

func (m *Metrics) finishedBatch(t batch.Type, s batch.Status) {
	if m != nil {
		m.finished.WithLabelValues(string(t), string(s)).Inc()
	}
}
