package store

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// QueueCollector exposes batch_queue_depth{state} at each scrape: batches
// waiting for a worker (state="waiting": never claimed, or their lease ran
// out) and batches a worker holds (state="leased"). When the database does
// not answer within 2 s the scrape leaves the series out rather than
// failing.
type QueueCollector struct {
	store *Store
	desc  *prometheus.Desc
}

// QueueCollector returns the collector of the store's batch queue.
func (s *Store) QueueCollector() *QueueCollector {
	return &QueueCollector{store: s, desc: prometheus.NewDesc("batch_queue_depth",
		"Batches queued or processing, by state (waiting for a worker, leased by one).", []string{"state"}, nil)}
}

// Describe implements prometheus.Collector.
func (c *QueueCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

// Collect implements prometheus.Collector.
func (c *QueueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var waiting, leased int64
	err := c.store.pool.QueryRow(ctx, `SELECT
		count(*) FILTER (WHERE lease_token IS NULL OR lease_until < now()),
		count(*) FILTER (WHERE lease_token IS NOT NULL AND lease_until >= now())
		FROM batch_queue`).Scan(&waiting, &leased)
	if err != nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(waiting), "waiting")
	ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(leased), "leased")
}
