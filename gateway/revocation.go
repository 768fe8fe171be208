package gateway

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/paylane/paylane/gateway/internal/tokens"
	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/ids"
)

// consumeRevocations evicts the cached answers of revoked tokens. The
// consumer group is unique to this process, so every replica sees every
// event.
func consumeRevocations(ctx context.Context, cfg Config, resolver *tokens.Resolver, log *slog.Logger) error {
	group := "gateway-" + ids.New()
	err := events.Consume(ctx, cfg.KafkaBrokers, group, []string{events.TopicIdentity}, log,
		evictRevoked(resolver, log))
	if ctx.Err() != nil {
		return nil
	}
	return fmt.Errorf("consuming %s: %w", events.TopicIdentity, err)
}

// evictRevoked handles the events of the identity topic: token.revoked
// evicts the token's cached answers; other types are ignored.
func evictRevoked(resolver *tokens.Resolver, log *slog.Logger) func(context.Context, events.Envelope) error {
	return func(_ context.Context, env events.Envelope) error {
		if env.Type != events.TypeTokenRevoked {
			return nil
		}
		var data events.TokenRevoked
		if err := env.Decode(&data); err != nil {
			// Retrying cannot fix it and would stall the topic: log, move on.
			log.Error("undecodable token.revoked event", "event_id", env.ID, "error", err.Error())
			return nil
		}
		n := resolver.Evict(data.TokenID)
		log.Info("token revoked, cached answers evicted", "token_id", data.TokenID, "entries", n,
			"event_id", env.ID, "request_id", env.RequestID)
		return nil
	}
}
