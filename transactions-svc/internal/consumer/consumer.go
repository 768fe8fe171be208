// Package consumer applies the message.* events optin-svc publishes on
// paylane.messages.v1 to the transactions they are about (latest_message).
package consumer

import (
	"context"
	"log/slog"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/transactions-svc/internal/app"
)

// Group is the Kafka consumer group of transactions-svc's message consumer.
const Group = "transactions-svc.messages"

// Run consumes message events until ctx is done.
func Run(ctx context.Context, brokers []string, a *app.App, log *slog.Logger) error {
	return events.Consume(ctx, brokers, Group, []string{events.TopicMessages}, log, a.ApplyMessage)
}
