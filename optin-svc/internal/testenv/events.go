package testenv

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/paylane/paylane/libs/events"
)

// Outbox returns the events optin-svc recorded for the tenant, oldest first
// within each topic: those its relay already published (read from the
// brokers, when the env has them) followed by the rows still in its outbox.
// The relay deletes a row once the broker has its event, so reading the
// outbox first and the topics after it misses none.
func (e *Env) Outbox(t testing.TB, tenantID string) []events.Envelope {
	t.Helper()
	pending := e.outboxRows(t, tenantID)
	if len(e.brokers) == 0 {
		return pending
	}
	var out []events.Envelope
	seen := map[string]bool{}
	for _, topic := range []string{events.TopicMessages, events.TopicOptins} {
		for _, env := range Published(t, e.brokers, topic) {
			if env.TenantID == tenantID && !seen[env.ID] {
				seen[env.ID] = true
				out = append(out, env)
			}
		}
	}
	for _, env := range pending {
		if !seen[env.ID] {
			out = append(out, env)
		}
	}
	return out
}

// outboxRows returns the tenant's events still in optin-svc's outbox.
func (e *Env) outboxRows(t testing.TB, tenantID string) []events.Envelope {
	t.Helper()
	rows, err := e.Owner.Query(context.Background(),
		`SELECT payload FROM outbox WHERE tenant_id = $1 ORDER BY id`, tenantID)
	if err != nil {
		t.Fatalf("reading outbox: %v", err)
	}
	defer rows.Close()
	var out []events.Envelope
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			t.Fatal(err)
		}
		var env events.Envelope
		if err := json.Unmarshal(raw, &env); err != nil {
			t.Fatalf("decoding outbox payload %s: %v", raw, err)
		}
		out = append(out, env)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Types returns the types of envs in order.
func Types(envs []events.Envelope) []string {
	out := make([]string, len(envs))
	for i, env := range envs {
		out[i] = env.Type
	}
	return out
}
