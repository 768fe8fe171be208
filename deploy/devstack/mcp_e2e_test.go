package devstack

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/libs/authz"
)

// mcpEndpoint is the AI gateway's MCP server on the public host.
const mcpEndpoint = "/api/v1/gateway/mcp"

// withBearer adds the API token to every request of the MCP client.
type withBearer struct {
	token string
	next  http.RoundTripper
}

func (b withBearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// mcpConnect opens an MCP session through the gateway with the SDK's own
// client (streamable HTTP transport), authenticated by token.
func (e *e2e) mcpConnect(t *testing.T, token string) (*mcp.ClientSession, error) {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "paylane-e2e", Version: "1"}, nil)
	// No overall client timeout: the session's event stream stays open.
	hc := &http.Client{Transport: withBearer{token: token, next: e.hc.Transport}}
	return c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: e.info.GatewayURL + mcpEndpoint, HTTPClient: hc}, nil)
}

// mcpTool is one tool call's outcome: the structured data, or the error
// envelope's code.
type mcpTool struct {
	res  *mcp.CallToolResult
	data json.RawMessage
	code string
}

func mcpCall(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) mcpTool {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	out := mcpTool{res: res}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		var env struct {
			Error struct{ Code string } `json:"error"`
		}
		if err := json.Unmarshal(raw, &env); err != nil || env.Error.Code == "" {
			t.Fatalf("%s: a tool error that is not the envelope: %s", name, raw)
		}
		out.code = env.Error.Code
		return out
	}
	out.data = raw
	return out
}

func (m mcpTool) decode(t *testing.T, v any) {
	t.Helper()
	if m.res.IsError {
		t.Fatalf("tool error %s", m.code)
	}
	if err := json.Unmarshal(m.data, v); err != nil {
		t.Fatalf("decoding %s: %v", m.data, err)
	}
}

// limitOf is the guardrail an ai_limit_exceeded tool error names.
func (m mcpTool) limit(t *testing.T) string {
	t.Helper()
	if m.code != "ai_limit_exceeded" {
		t.Fatalf("got %q, want ai_limit_exceeded", m.code)
	}
	var env struct {
		Error struct {
			Details struct{ Limit string }
		} `json:"error"`
	}
	raw, _ := json.Marshal(m.res.StructuredContent)
	if err := json.Unmarshal(raw, &env); err != nil {
		t.Fatal(err)
	}
	return env.Error.Details.Limit
}

// TestAIGatewayMCPEndToEnd drives the AI gateway's MCP server through the
// HTTPS gateway with the SDK's client: the tools are listed; an agent
// creates and resolves a contact, prepares a receivable, confirms it twice
// with one idempotency key (one SMS), and follows its status; the
// tenant's guardrails refuse amounts above each; a token without
// api:create-receivable gets the gate's forbidden from
// prepare_transaction; with the flag off the endpoint refuses.
func TestAIGatewayMCPEndToEnd(t *testing.T) {
	stack, e := startWithClient(t)
	ctx := context.Background()
	tenant := stack.info.DemoTenantID
	on, off, limit := true, false, noRateLimit
	maxAmount, daily := int64(50000), int64(6000)
	if _, err := e.admin.UpdateTenant(ctx, tenant, client.TenantInput{
		Flags:  &client.FlagsInput{AIGateway: &on},
		Limits: &client.LimitsInput{APIRequestsPerMinute: &limit, AIMaxAmount: &maxAmount, AIDailyAmount: &daily},
	}); err != nil {
		t.Fatalf("updating the demo tenant: %v", err)
	}
	tok := e.mintAll(t, tenant, "mcp agent")
	cs, err := e.mcpConnect(t, tok)
	if err != nil {
		t.Fatalf("connecting through the gateway: %v", err)
	}
	defer cs.Close()

	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if want := []string{"confirm_transaction", "create_contact", "prepare_transaction", "resolve_contact", "transaction_status"}; !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}

	phone := "+14155550187"
	var contact struct{ ID string }
	mcpCall(t, cs, "create_contact", map[string]any{"first_name": "Octavia", "last_name": "Brightwater", "phone": phone,
		"idempotency_key": "mcp-e2e-contact"}).decode(t, &contact)
	var res struct {
		Status     string
		Candidates []struct {
			ContactID string `json:"contact_id"`
		}
	}
	mcpCall(t, cs, "resolve_contact", map[string]any{"name": "Octavia Brightwater"}).decode(t, &res)
	if res.Status != "matched" || len(res.Candidates) == 0 || res.Candidates[0].ContactID != contact.ID {
		t.Fatalf("resolution %+v, want matched on %s", res, contact.ID)
	}

	var draft struct {
		TransactionID string  `json:"transaction_id"`
		ReceivableID  *string `json:"receivable_id"`
		Status        string
	}
	mcpCall(t, cs, "prepare_transaction", map[string]any{"direction": "receivable", "contact_id": contact.ID, "amount": 1250,
		"description": "MCP e2e", "idempotency_key": "mcp-e2e-prepare"}).decode(t, &draft)
	if draft.Status != "draft" || draft.ReceivableID == nil {
		t.Fatalf("draft %+v", draft)
	}
	if n := len(e.sinkMessages(t, tenant, phone)); n != 0 {
		t.Fatalf("%d SMS after prepare; prepare sends nothing", n)
	}

	confirm := map[string]any{"transaction_id": draft.TransactionID, "idempotency_key": "mcp-e2e-confirm"}
	var done struct{ Status string }
	mcpCall(t, cs, "confirm_transaction", confirm).decode(t, &done)
	if done.Status != "pending" {
		t.Fatalf("confirmed %+v, want pending", done)
	}
	again := mcpCall(t, cs, "confirm_transaction", confirm)
	again.decode(t, &done)
	if done.Status != "pending" || again.res.Meta["idempotent_replayed"] != true {
		t.Fatalf("repeated confirm %+v, meta %v: want the first answer replayed", done, again.res.Meta)
	}

	var status struct {
		TransactionID string          `json:"transaction_id"`
		LatestMessage json.RawMessage `json:"latest_message"`
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		mcpCall(t, cs, "transaction_status", map[string]any{"reference": *draft.ReceivableID}).decode(t, &status)
		if len(status.LatestMessage) > 0 && string(status.LatestMessage) != "null" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("latest_message still null after 20 s")
		}
	}
	if status.TransactionID != draft.TransactionID {
		t.Errorf("status of %s names %s", *draft.ReceivableID, status.TransactionID)
	}
	if msgs := e.sinkMessages(t, tenant, phone); len(msgs) != 1 {
		t.Errorf("%d SMS to the contact after a confirm and its replay, want 1: %s", len(msgs), msgs)
	}

	// Guardrails: 50000 per transaction; 6000 a day, 1250 of it confirmed.
	over := mcpCall(t, cs, "prepare_transaction", map[string]any{"direction": "payable", "contact_id": contact.ID, "amount": 50001})
	if got := over.limit(t); got != "ai_max_amount" {
		t.Errorf("above the per-transaction limit: limit %q, want ai_max_amount", got)
	}
	over = mcpCall(t, cs, "prepare_transaction", map[string]any{"direction": "receivable", "contact_id": contact.ID, "amount": 4751})
	if got := over.limit(t); got != "ai_daily_amount" {
		t.Errorf("above the daily limit: limit %q, want ai_daily_amount", got)
	}
	mcpCall(t, cs, "prepare_transaction", map[string]any{"direction": "receivable", "contact_id": contact.ID, "amount": 4750}).decode(t, &draft)
	// The REST route refuses alike.
	r := e.aiSend(t, http.MethodPost, "/api/v1/gateway/transactions/prepare", tok,
		map[string]any{"direction": "receivable", "contact_id": contact.ID, "amount": 50001}, "")
	e.expectError(t, r, http.StatusUnprocessableEntity, "ai_limit_exceeded")

	without := e.mintWithout(t, tenant, "mcp without create-receivable", "api:create-receivable")
	limited, err := e.mcpConnect(t, without)
	if err != nil {
		t.Fatal(err)
	}
	defer limited.Close()
	if got := mcpCall(t, limited, "prepare_transaction", map[string]any{"direction": "receivable", "contact_id": contact.ID, "amount": 100}); got.code != "forbidden" {
		t.Errorf("prepare_transaction without api:create-receivable: %q, want forbidden", got.code)
	}

	if _, err := e.admin.UpdateTenant(ctx, tenant, client.TenantInput{Flags: &client.FlagsInput{AIGateway: &off}}); err != nil {
		t.Fatal(err)
	}
	offTok := e.mintAll(t, tenant, "mcp flag off")
	if _, err := e.mcpConnect(t, offTok); err == nil {
		t.Error("connected with the ai_gateway flag off")
	}
	r = e.send(t, http.MethodPost, mcpEndpoint, offTok, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
		map[string]string{"Accept": "application/json, text/event-stream"})
	e.expectError(t, r, http.StatusForbidden, "forbidden")
	// The endpoint counts against the token's rate limit like any route.
	if r.header.Get("X-RateLimit-Limit") == "" || r.header.Get("X-RateLimit-Remaining") == "" {
		t.Errorf("MCP answer without X-RateLimit-Limit and X-RateLimit-Remaining: %v", r.header)
	}
}

// mintWithout mints a token of tenant with every ability but the given ones.
func (e *e2e) mintWithout(t *testing.T, tenantID, name string, except ...string) string {
	t.Helper()
	var abilities []string
	for _, a := range authz.All() {
		if !slices.Contains(except, a) {
			abilities = append(abilities, a)
		}
	}
	tok, err := e.admin.CreateToken(context.Background(), tenantID, client.TokenInput{Name: name, Abilities: abilities})
	if err != nil {
		t.Fatal(err)
	}
	return tok.Token
}

// sinkMessages lists the SMS the sink provider stored for the number.
func (e *e2e) sinkMessages(t *testing.T, tenantID, e164 string) []json.RawMessage {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, e.info.AdminURL+"/admin/v1/tenants/"+tenantID+"/messages?to="+url.QueryEscape(e164), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+e.info.AdminToken)
	resp, err := e.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var page struct{ Data []json.RawMessage }
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &page) != nil {
		t.Fatalf("messages: %d %s", resp.StatusCode, body)
	}
	return page.Data
}
