// Package optinsvc is optin-svc: the suppression list, opt-in codes and
// consents, SMS messages through a provider adapter (sink or Twilio), the
// hosted opt-in landing page and inbound SMS. Run wires it together on
// libs/svcrun: the HTTP listener, the outbox relay, the event consumer and
// the message dispatcher.
package optinsvc

import (
	"context"
	"time"

	"github.com/paylane/paylane/libs/svcrun"
	"github.com/paylane/paylane/optin-svc/migrations"
)

const (
	// cleanupInterval is how often expired idempotency keys are deleted.
	cleanupInterval = time.Hour
	// inboxRetention keeps consumed event ids well past any topic's
	// retention, so no redelivery outlives its claim.
	inboxRetention = 30 * 24 * time.Hour
	// pruneInterval is how often old inbox claims are deleted.
	pruneInterval = time.Hour
	// jwksPath is where identity-svc publishes the keys of internal tokens.
	jwksPath = "/internal/v1/jwks"
	// consumerGroup is optin-svc's Kafka consumer group.
	consumerGroup = "optin-svc"
)

// WithContacts replaces the contacts-svc client built from ContactsURL
// (tests).
func WithContacts(c Contacts) svcrun.Option { return svcrun.WithSeam(c) }

// Run serves optin-svc until ctx is done, then shuts down gracefully
// (libs/svcrun).
func Run(ctx context.Context, cfg Config, opts ...svcrun.Option) error {
	return svcrun.Run(ctx, svcrun.Spec{
		Name: serviceName, Base: cfg.Base, Migrations: migrations.Sets(), Validate: cfg.Validate,
		Build: func(_ context.Context, e *svcrun.Env) (svcrun.Parts, error) { return build(cfg, e) },
	}, opts...)
}

func trimSlash(s string) string {
	for len(s) > 0 && s[len(s)-1] == '/' {
		s = s[:len(s)-1]
	}
	return s
}
