package devstack

import (
	"context"
	"net/http"
	"testing"

	"github.com/paylane/paylane/identity-svc/client"
)

// TestIdempotencyKeyScopeEndToEnd: an Idempotency-Key is one key across the
// whole API (contract section 3). Used first on POST /contacts, the same key
// on POST /webhook-endpoints (another service, which keeps its own records)
// is 409 idempotency_conflict and creates nothing; on /contacts it still
// replays. Keys sent to the AI gateway and to batch routes, which write
// through other services, do not conflict with themselves.
func TestIdempotencyKeyScopeEndToEnd(t *testing.T) {
	stack, e := startWithClient(t)
	tok := e.info.DemoToken
	key := func(k string) map[string]string { return map[string]string{"Idempotency-Key": k} }
	contact := map[string]any{"first_name": "Ada", "last_name": "Lovelace", "phone": "+14155550161"}

	first := e.send(t, http.MethodPost, "/api/v1/contacts", tok, contact, key("scope-e2e-K"))
	e.expectStatus(t, first, http.StatusCreated)

	r := e.send(t, http.MethodPost, "/api/v1/webhook-endpoints", tok, map[string]any{
		"name": "reused key", "url": "https://example.com/hook", "subscribed_events": []string{"contact.*"},
	}, key("scope-e2e-K"))
	e.expectError(t, r, http.StatusConflict, "idempotency_conflict")
	var list struct {
		Data []struct{ ID string } `json:"data"`
	}
	r = e.get(t, "/api/v1/webhook-endpoints", tok)
	e.expectStatus(t, r, http.StatusOK)
	whDecode(t, r.body, &list)
	if len(list.Data) != 0 {
		t.Errorf("webhook endpoints %s, want none: the refused request created one", r.body)
	}

	replay := e.send(t, http.MethodPost, "/api/v1/contacts", tok, contact, key("scope-e2e-K"))
	e.expectStatus(t, replay, http.StatusCreated)
	if replay.header.Get("Idempotent-Replayed") != "true" || string(replay.body) != string(first.body) {
		t.Errorf("same key on /contacts: Idempotent-Replayed %q, body %s; want the first answer replayed (%s)",
			replay.header.Get("Idempotent-Replayed"), replay.body, first.body)
	}

	// The AI gateway forwards its caller's key to contacts-svc, and a batch
	// records it in batch-svc: neither meets the key it forwards.
	on, limit := true, noRateLimit
	if _, err := e.admin.UpdateTenant(context.Background(), stack.info.DemoTenantID, client.TenantInput{
		Flags: &client.FlagsInput{AIGateway: &on}, Limits: &client.LimitsInput{APIRequestsPerMinute: &limit},
	}); err != nil {
		t.Fatalf("turning the ai_gateway flag on: %v", err)
	}
	aiTok := e.mintAll(t, stack.info.DemoTenantID, "ai gateway on")
	aiContact := map[string]any{"first_name": "Zephyrine", "last_name": "Quillfeather", "phone": "+14155550162"}
	for i := range 2 {
		r = e.send(t, http.MethodPost, "/api/v1/gateway/contacts", aiTok, aiContact, key("scope-e2e-ai"))
		e.expectStatus(t, r, http.StatusCreated)
		if i == 1 && r.header.Get("Idempotent-Replayed") != "true" {
			t.Errorf("AI gateway create again: Idempotent-Replayed %q, want true", r.header.Get("Idempotent-Replayed"))
		}
	}
	batch := map[string]any{"items": []map[string]any{{"external_id": "scope-e2e-1", "first_name": "Ada", "phone": "+14155550163"}}}
	for i := range 2 {
		r = e.send(t, http.MethodPost, "/api/v1/contacts/batch", tok, batch, key("scope-e2e-batch"))
		e.expectStatus(t, r, http.StatusAccepted)
		if i == 1 && r.header.Get("Idempotent-Replayed") != "true" {
			t.Errorf("batch submitted again: Idempotent-Replayed %q, want true", r.header.Get("Idempotent-Replayed"))
		}
	}
	// The AI gateway's key is bound to the AI gateway: the contacts route
	// refuses it although contacts-svc recorded it.
	r = e.send(t, http.MethodPost, "/api/v1/contacts", tok, aiContact, key("scope-e2e-ai"))
	e.expectError(t, r, http.StatusConflict, "idempotency_conflict")
}
