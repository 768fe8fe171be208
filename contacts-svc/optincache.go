package contacts

import (
	"context"
	"log/slog"

	"github.com/paylane/paylane/contacts-svc/internal/peers"
	"github.com/paylane/paylane/libs/events"
)

// followOptIns evicts cached opt-in answers as optin-svc's events arrive,
// until ctx is done. Every replica follows the topic itself (events.Follow:
// from the newest message, no consumer group), since each keeps its own
// cache. While it cannot read (the brokers are down, or before it has
// started), the cache's TTL bounds how stale an answer gets.
func followOptIns(ctx context.Context, brokers []string, cache *peers.Cache, log *slog.Logger) {
	log = log.With("worker", "optin-cache")
	err := events.Follow(ctx, brokers, []string{events.TopicOptins}, log,
		func() { log.Info("following optin-svc's events to evict cached opt-in answers") }, cache.Invalidate)
	if err != nil {
		log.Error("not following optin-svc's events; cached opt-in answers expire by TTL only", "err", err)
	}
}
