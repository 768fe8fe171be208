package batchsvc

import (
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	contacts "github.com/paylane/paylane/contacts-svc/client"
	identity "github.com/paylane/paylane/identity-svc/client"
	transactions "github.com/paylane/paylane/transactions-svc/client"

	"github.com/paylane/paylane/batch-svc/internal/app"
	"github.com/paylane/paylane/batch-svc/internal/batch"
	"github.com/paylane/paylane/batch-svc/internal/peers"
	"github.com/paylane/paylane/batch-svc/internal/store"
	"github.com/paylane/paylane/batch-svc/internal/worker"
	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/libs/outbox"
)

// peerTimeout bounds a whole call to a peer; the clients also apply their
// own per-call timeouts (a bulk write: 30 s) and circuit breakers.
const peerTimeout = 60 * time.Second

// parts are the wired use cases and workers.
type parts struct {
	app     *app.App
	workers *worker.Pool
}

// build wires the use cases, the writers of each batch type and the
// workers. relay may be nil (no Kafka); tokens nil means identity-svc's.
func build(cfg Config, tokens peers.Tokens, pool *pgxpool.Pool, listCap listtotal.Cap, relay *outbox.Relay, metrics *app.Metrics, log *slog.Logger) parts {
	if tokens == nil {
		tokens = identity.NewWithSecret(cfg.IdentityURL, cfg.ServiceSecret, nil).WithService(serviceName)
	}
	hc := &http.Client{Timeout: peerTimeout}
	txns := peers.NewTransactions(transactions.New(strings.TrimRight(cfg.TransactionsURL, "/"), hc), tokens)
	writers := map[batch.Type]app.Writer{
		batch.Contacts:    peers.NewContacts(contacts.New(strings.TrimRight(cfg.ContactsURL, "/"), hc), tokens),
		batch.Receivables: txns,
		batch.Payables:    txns,
	}
	st := store.New(pool)
	st.ListCap = listCap
	var p parts
	var wakeRelay func()
	if relay != nil {
		wakeRelay = relay.Wake
	}
	p.app = app.New(app.Deps{
		Store: st, Writers: writers, Campaigns: txns, PublicBaseURL: strings.TrimRight(cfg.PublicBaseURL, "/"),
		Limits: app.Limits{SubmissionsPerMinute: cfg.SubmissionsPerMinute, InFlight: cfg.InFlight},
		Wake:   func() { p.workers.Wake() }, WakeRelay: wakeRelay,
		Retry: app.Backoff{Base: cfg.RetryBase, Max: 30 * time.Second}, RetryFor: cfg.RetryFor,
		Metrics: metrics, Log: log,
	})
	p.workers = worker.New(worker.Options{
		App: p.app, Store: st, Workers: cfg.Workers, Lease: cfg.Lease, PollInterval: cfg.PollInterval, Log: log,
	})
	return p
}
