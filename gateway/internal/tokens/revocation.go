package tokens

import (
	"context"
	"encoding/json"

	"github.com/paylane/paylane/libs/events"
)

// HandleEvent evicts the cached answers of a token named by a token.revoked
// event; other events of the topic are ignored.
func (r *Resolver) HandleEvent(_ context.Context, env events.Envelope) error {
	if env.Type != events.TypeTokenRevoked {
		return nil
	}
	var data events.TokenRevoked
	if err := json.Unmarshal(env.Data, &data); err != nil {
		// A malformed event would be retried forever: log and move on.
		r.opts.Logger.Error("undecodable token.revoked event", "event_id", env.ID, "error", err.Error())
		return nil
	}
	n := r.Evict(data.TokenID)
	r.opts.Logger.Info("token revoked, cache evicted", "token_id", data.TokenID, "entries", n,
		"event_id", env.ID, "request_id", env.RequestID)
	return nil
}
