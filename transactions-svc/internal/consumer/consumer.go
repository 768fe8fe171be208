// Package consumer applies the events transactions-svc reads: the message.*
// events optin-svc publishes on paylane.messages.v1 to the transactions they
// are about (latest_message), and identity-svc's tenant.updated on
// paylane.identity.v1 to the tenant names the hosted pages show.
package consumer

import (
	"context"
	"log/slog"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/transactions-svc/internal/app"
)

// Group is the Kafka consumer group of transactions-svc's message consumer.
const Group = "transactions-svc.messages"

// TenantsGroup is the Kafka consumer group of the tenant consumer: a group
// of its own, so that it starts at the oldest retained tenant event and
// learns the tenants created before it ran.
const TenantsGroup = "transactions-svc.tenants"

// Run consumes message events, in batches, until ctx is done.
func Run(ctx context.Context, brokers []string, a *app.App, log *slog.Logger) error {
	return events.ConsumeBatch(ctx, brokers, Group, []string{events.TopicMessages}, events.BatchLimits{}, log, a.ApplyMessages)
}

// RunTenants consumes identity-svc's tenant events until ctx is done.
func RunTenants(ctx context.Context, brokers []string, a *app.App, log *slog.Logger) error {
	return events.Consume(ctx, brokers, TenantsGroup, []string{events.TopicIdentity}, log, a.ApplyTenant)
}
