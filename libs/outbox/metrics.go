package outbox

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
)

// backlogCap bounds the rows the backlog gauge counts, so a scrape stays
// cheap however far the relay has fallen behind.
const backlogCap = 1_000_000

// scrapeTimeout bounds the query of one scrape.
const scrapeTimeout = 2 * time.Second

// BacklogCollector exposes, at each scrape, the outbox rows waiting to be
// published (outbox_backlog, counted up to 1,000,000) and the age of the
// oldest (outbox_oldest_age_seconds, 0 when none waits): every row waits,
// since the relay deletes a row once Kafka has it. When the database does
// not answer within 2 s the scrape carries neither series (the database's
// own alerts tell), rather than failing.
type BacklogCollector struct {
	pool    *pgxpool.Pool
	backlog *prometheus.Desc
	age     *prometheus.Desc
}

// NewBacklogCollector returns the collector of the outbox read through pool,
// labelled with the service.
func NewBacklogCollector(pool *pgxpool.Pool, service string) *BacklogCollector {
	labels := prometheus.Labels{"service": service}
	return &BacklogCollector{
		pool: pool,
		backlog: prometheus.NewDesc("outbox_backlog",
			"Events in the outbox waiting to be published to Kafka (counted up to 1,000,000).", nil, labels),
		age: prometheus.NewDesc("outbox_oldest_age_seconds",
			"Age of the oldest event waiting in the outbox; 0 when none waits.", nil, labels),
	}
}

// Describe implements prometheus.Collector.
func (c *BacklogCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.backlog
	ch <- c.age
}

// Collect implements prometheus.Collector.
func (c *BacklogCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	var n int64
	var age float64
	err := c.pool.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM (SELECT 1 FROM outbox LIMIT $1) w),
		COALESCE(EXTRACT(EPOCH FROM now() - (SELECT created_at FROM outbox ORDER BY id LIMIT 1)), 0)::float8`,
		backlogCap).Scan(&n, &age)
	if err != nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(c.backlog, prometheus.GaugeValue, float64(n))
	ch <- prometheus.MustNewConstMetric(c.age, prometheus.GaugeValue, max(age, 0))
}
