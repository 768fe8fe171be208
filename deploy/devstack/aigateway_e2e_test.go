package devstack

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/libs/authz"
)

// TestAIGatewayEndToEnd walks the AI gateway through the real HTTPS
// gateway: with the tenant's ai_gateway flag off every route is 403; with
// it on, a contact created through /gateway/contacts resolves by name as
// matched, a receivable prepared for it is a draft, confirming it makes it
// pending, and its status eventually shows the latest message.
func TestAIGatewayEndToEnd(t *testing.T) {
	stack, e := startWithClient(t)
	ctx := context.Background()
	tenant := stack.info.DemoTenantID
	off, on, limit := false, true, noRateLimit
	if _, err := e.admin.UpdateTenant(ctx, tenant, client.TenantInput{
		Flags: &client.FlagsInput{AIGateway: &off}, Limits: &client.LimitsInput{APIRequestsPerMinute: &limit},
	}); err != nil {
		t.Fatalf("turning the ai_gateway flag off: %v", err)
	}
	offTok := e.mintAll(t, tenant, "ai gateway off")
	r := e.aiSend(t, http.MethodPost, "/api/v1/gateway/resolve-contact", offTok, map[string]any{"name": "Ada"}, "")
	e.expectError(t, r, http.StatusForbidden, "forbidden")
	r = e.aiSend(t, http.MethodGet, "/api/v1/gateway/transactions/nope/status", offTok, nil, "")
	e.expectError(t, r, http.StatusForbidden, "forbidden")

	if _, err := e.admin.UpdateTenant(ctx, tenant, client.TenantInput{Flags: &client.FlagsInput{AIGateway: &on}}); err != nil {
		t.Fatalf("turning the ai_gateway flag on: %v", err)
	}
	tok := e.mintAll(t, tenant, "ai gateway on")

	r = e.aiSend(t, http.MethodPost, "/api/v1/gateway/contacts", tok,
		map[string]any{"first_name": "Zephyrine", "last_name": "Quillfeather", "phone": "+14155550173"}, "ai-e2e-contact")
	e.expectStatus(t, r, http.StatusCreated)
	var contact struct{ Data struct{ ID, Phone string } }
	whDecode(t, r.body, &contact)
	if contact.Data.ID == "" || contact.Data.Phone != "+14155550173" {
		t.Fatalf("created contact %s", r.body)
	}
	// The same Idempotency-Key and body: contacts-svc replays the first
	// answer (a second create would be 422, the phone being taken).
	r = e.aiSend(t, http.MethodPost, "/api/v1/gateway/contacts", tok,
		map[string]any{"first_name": "Zephyrine", "last_name": "Quillfeather", "phone": "+14155550173"}, "ai-e2e-contact")
	e.expectStatus(t, r, http.StatusCreated)
	var again struct{ Data struct{ ID string } }
	whDecode(t, r.body, &again)
	if again.Data.ID != contact.Data.ID {
		t.Fatalf("replayed create %s, want contact %s", r.body, contact.Data.ID)
	}
	if r.header.Get("Idempotent-Replayed") != "true" || r.header.Get("Original-Request-Id") == "" {
		t.Errorf("replayed create: Idempotent-Replayed %q, Original-Request-Id %q; want the owning service's replay headers",
			r.header.Get("Idempotent-Replayed"), r.header.Get("Original-Request-Id"))
	}
	r = e.aiSend(t, http.MethodPost, "/api/v1/gateway/contacts", tok,
		map[string]any{"first_name": "Other", "last_name": "Person", "phone": "+14155550173"}, "")
	e.expectError(t, r, http.StatusUnprocessableEntity, "validation_failed")

	r = e.aiSend(t, http.MethodPost, "/api/v1/gateway/resolve-contact", tok, map[string]any{"name": "Zephyrine Quillfeather"}, "")
	e.expectStatus(t, r, http.StatusOK)
	var res struct {
		Data struct {
			Status     string
			Candidates []struct {
				ContactID  string `json:"contact_id"`
				PhoneLast4 string `json:"phone_last4"`
			}
		}
	}
	whDecode(t, r.body, &res)
	if res.Data.Status != "matched" || len(res.Data.Candidates) == 0 || res.Data.Candidates[0].ContactID != contact.Data.ID ||
		res.Data.Candidates[0].PhoneLast4 != "0173" {
		t.Fatalf("resolution %s, want matched on %s", r.body, contact.Data.ID)
	}

	r = e.aiSend(t, http.MethodPost, "/api/v1/gateway/transactions/prepare", tok, map[string]any{
		"direction": "receivable", "contact_id": contact.Data.ID, "amount": 1250, "description": "AI gateway e2e",
	}, "ai-e2e-prepare")
	e.expectStatus(t, r, http.StatusCreated)
	var draft struct {
		Data struct {
			TransactionID string  `json:"transaction_id"`
			ReceivableID  *string `json:"receivable_id"`
			Status        string
			Preview       struct {
				PhoneLast4 string `json:"phone_last4"`
			}
		}
	}
	whDecode(t, r.body, &draft)
	if draft.Data.Status != "draft" || draft.Data.ReceivableID == nil || draft.Data.Preview.PhoneLast4 != "0173" {
		t.Fatalf("draft %s", r.body)
	}
	id := draft.Data.TransactionID

	r = e.aiSend(t, http.MethodPost, "/api/v1/gateway/transactions/"+id+"/confirm", tok, map[string]any{}, "ai-e2e-confirm")
	e.expectStatus(t, r, http.StatusOK)
	var confirmed struct{ Data struct{ Status string } }
	whDecode(t, r.body, &confirmed)
	if confirmed.Data.Status != "pending" {
		t.Fatalf("confirmed %s, want pending", r.body)
	}
	// A retried confirm with its key replays; without one it is a second confirm.
	r = e.aiSend(t, http.MethodPost, "/api/v1/gateway/transactions/"+id+"/confirm", tok, map[string]any{}, "ai-e2e-confirm")
	e.expectStatus(t, r, http.StatusOK)
	if r.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("replayed confirm: Idempotent-Replayed %q, want true", r.header.Get("Idempotent-Replayed"))
	}
	r = e.aiSend(t, http.MethodPost, "/api/v1/gateway/transactions/"+id+"/confirm", tok, map[string]any{}, "")
	e.expectError(t, r, http.StatusUnprocessableEntity, "invalid_transition")

	var status struct {
		Data struct {
			TransactionID string          `json:"transaction_id"`
			Direction     string          `json:"direction"`
			LatestMessage json.RawMessage `json:"latest_message"`
		}
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		r = e.aiSend(t, http.MethodGet, "/api/v1/gateway/transactions/"+*draft.Data.ReceivableID+"/status", tok, nil, "")
		e.expectStatus(t, r, http.StatusOK)
		whDecode(t, r.body, &status)
		if len(status.Data.LatestMessage) > 0 && string(status.Data.LatestMessage) != "null" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("latest_message still null after 20 s: %s", r.body)
		}
	}
	if status.Data.TransactionID != id || status.Data.Direction != "receivable" {
		t.Errorf("status %s", r.body)
	}
}

// mintAll mints a token of tenant with every ability: its internal token
// carries the tenant's flags as they are now.
func (e *e2e) mintAll(t *testing.T, tenantID, name string) string {
	t.Helper()
	tok, err := e.admin.CreateToken(context.Background(), tenantID, client.TokenInput{Name: name, Abilities: authz.All()})
	if err != nil {
		t.Fatalf("minting a token: %v", err)
	}
	return tok.Token
}

// aiSend sends a JSON request (no body when body is nil) with token and,
// when key is not empty, an Idempotency-Key.
func (e *e2e) aiSend(t *testing.T, method, path, token string, body any, key string) response {
	t.Helper()
	var header map[string]string
	if key != "" {
		header = map[string]string{"Idempotency-Key": key}
	}
	return e.send(t, method, path, token, body, header)
}
