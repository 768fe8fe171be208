package testsvc

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/paylane/paylane/libs/events"
)

// Outbox returns the events optin-svc recorded for the tenant, oldest
// first, read from its outbox (published or not).
func (e *Env) Outbox(t testing.TB, tenantID string) []events.Envelope {
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
