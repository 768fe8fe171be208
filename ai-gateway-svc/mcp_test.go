package aigatewaysvc_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/paylane/paylane/ai-gateway-svc/internal/testenv"
)

// bearer adds an Authorization header to every request of the MCP client.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// connect opens an MCP session on the service with token.
func connect(t *testing.T, s testenv.Service, token string) (*mcp.ClientSession, error) {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	return c.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: s.BaseURL() + "/api/v1/gateway/mcp", HTTPClient: &http.Client{Transport: bearer{token}},
	}, nil)
}

// call calls a tool and returns its result, failing on a protocol error.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// data decodes a successful result's structured content.
func data(t *testing.T, res *mcp.CallToolResult, v any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error %s", text(res))
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("structured content %s: %v", raw, err)
	}
}

// errorCode is the envelope code of a tool error.
func errorCode(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want a tool error, got %s", text(res))
	}
	var env struct {
		Error struct{ Code string } `json:"error"`
	}
	if err := json.Unmarshal([]byte(text(res)), &env); err != nil {
		t.Fatalf("tool error %s is not the envelope: %v", text(res), err)
	}
	return env.Error.Code
}

func text(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

// TestMCPTools drives the MCP endpoint with the SDK's client: the five
// tools are listed with schemas, each runs its REST operation (same
// peers, same forwarded token and idempotency key), errors carry the
// envelope's code, and a closed session is gone.
func TestMCPTools(t *testing.T) {
	s := testenv.Start(t, nil)
	tok := s.Token(t, "t1", true, all()...)
	s.Candidates("t1", "Jane Doe", 1)
	cs, err := connect(t, s, tok)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}

	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" || tool.InputSchema == nil {
			t.Errorf("tool %s without a description or an input schema", tool.Name)
		}
	}
	slices.Sort(names)
	want := []string{"confirm_transaction", "create_contact", "prepare_transaction", "resolve_contact", "transaction_status"}
	if !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}

	var res struct {
		Status     string
		Candidates []struct {
			ContactID string `json:"contact_id"`
		}
	}
	data(t, call(t, cs, "resolve_contact", map[string]any{"name": "Jane Doe"}), &res)
	if res.Status != "matched" || len(res.Candidates) != 1 {
		t.Fatalf("resolution %+v", res)
	}

	var draft struct {
		TransactionID string `json:"transaction_id"`
		Status        string
	}
	data(t, call(t, cs, "prepare_transaction", map[string]any{"direction": "receivable", "contact_id": "C1",
		"amount": 1250, "idempotency_key": "mcp-prepare-1"}), &draft)
	drafts := s.Txns.Transactions("t1")
	if made := drafts[len(drafts)-1]; draft.TransactionID != made.ID || draft.Status != "draft" {
		t.Fatalf("draft %+v, transactions-svc's newest %+v", draft, made)
	}
	if c := s.Txns.Last("/internal/v1/drafts"); c.IdempotencyKey != "mcp-prepare-1" || c.Token != tok || c.Body["amount"] != float64(1250) {
		t.Errorf("prepare reached transactions-svc as %+v", c)
	}

	var done struct{ Status string }
	data(t, call(t, cs, "confirm_transaction", map[string]any{"transaction_id": "T1", "idempotency_key": "mcp-confirm-1"}), &done)
	if done.Status != "pending" || s.Txns.Last("/internal/v1/transactions/T1/confirm").IdempotencyKey != "mcp-confirm-1" {
		t.Fatalf("confirm %+v", done)
	}
	var st struct{ Direction, Status string }
	data(t, call(t, cs, "transaction_status", map[string]any{"reference": "T1"}), &st)
	if st.Direction != "receivable" {
		t.Fatalf("status %+v", st)
	}

	for _, c := range []struct {
		name, tool string
		args       map[string]any
		code       string
	}{
		{"unknown argument", "resolve_contact", map[string]any{"name": "Jane", "nmae": "x"}, "validation_failed"},
		{"missing name", "resolve_contact", map[string]any{}, "validation_failed"},
		{"bad direction", "prepare_transaction", map[string]any{"direction": "sideways", "contact_id": "C1", "amount": 1}, "validation_failed"},
		{"peer's 422 passes through", "prepare_transaction", map[string]any{"direction": "receivable", "contact_id": "missing", "amount": 1}, "validation_failed"},
		{"long idempotency key", "confirm_transaction", map[string]any{"transaction_id": "T1", "idempotency_key": string(make([]byte, 129))}, "validation_failed"},
		{"not a draft", "confirm_transaction", map[string]any{"transaction_id": "T2"}, "invalid_transition"},
		{"unknown reference", "transaction_status", map[string]any{"reference": "nope"}, "resource_not_found"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := errorCode(t, call(t, cs, c.tool, c.args)); got != c.code {
				t.Errorf("code %q, want %q", got, c.code)
			}
		})
	}

	id := cs.ID()
	if err := cs.Close(); err != nil {
		t.Fatalf("closing the session: %v", err)
	}
	r := s.Do(t, http.MethodPost, "/api/v1/gateway/mcp", tok,
		map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
		"Mcp-Session-Id", id, "Accept", "application/json, text/event-stream")
	if r.Status != http.StatusNotFound || r.Code() != "resource_not_found" {
		t.Errorf("a deleted session = %d %s, want 404 resource_not_found", r.Status, r.Body)
	}
}

// TestMCPGates: the flag off refuses the endpoint (403 in the envelope,
// the client cannot connect), so does a token without any of the tools'
// abilities; a token without the direction's create
// ability gets the gate's forbidden from prepare_transaction, before any
// peer is called.
func TestMCPGates(t *testing.T) {
	s := testenv.Start(t, nil)
	if _, err := connect(t, s, s.Token(t, "t1", false, all()...)); err == nil {
		t.Fatal("connected with the ai_gateway flag off")
	}
	r := s.Do(t, http.MethodPost, "/api/v1/gateway/mcp", s.Token(t, "t1", false, all()...),
		map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{}},
		"Accept", "application/json, text/event-stream")
	if r.Status != http.StatusForbidden || r.Code() != "forbidden" {
		t.Fatalf("flag off = %d %s, want 403 forbidden", r.Status, r.Body)
	}

	r = s.Do(t, http.MethodPost, "/api/v1/gateway/mcp", s.Token(t, "t1", true, "api:view-any-campaign"),
		map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{}},
		"Accept", "application/json, text/event-stream")
	if r.Status != http.StatusForbidden || r.Code() != "forbidden" {
		t.Fatalf("a token without any of the tools' abilities = %d %s, want 403 forbidden", r.Status, r.Body)
	}

	cs, err := connect(t, s, s.Token(t, "t1", true, viewAnyContact, createPayable))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res := call(t, cs, "prepare_transaction", map[string]any{"direction": "receivable", "contact_id": "C1", "amount": 1250})
	if got := errorCode(t, res); got != "forbidden" {
		t.Fatalf("code %q, want forbidden", got)
	}
	if n := s.Txns.Calls(); n != 0 {
		t.Errorf("transactions-svc called %d times past the gate", n)
	}
}

// TestMCPEventStream: a session's GET is the server's event stream,
// answered at once as text/event-stream and held open; DELETE ends the
// session, after which its id is unknown.
func TestMCPEventStream(t *testing.T) {
	s := testenv.Start(t, nil)
	tok := s.Token(t, "t1", true, all()...)
	accept := "application/json, text/event-stream"
	r := s.Do(t, http.MethodPost, "/api/v1/gateway/mcp", tok, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize",
		"params": map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": "raw", "version": "1"}}}, "Accept", accept)
	id := r.Header.Get("Mcp-Session-Id")
	if r.Status != http.StatusOK || id == "" {
		t.Fatalf("initialize = %d %s (session %q)", r.Status, r.Body, id)
	}
	headers := []string{"Mcp-Session-Id", id, "Mcp-Protocol-Version", "2025-06-18", "Accept", accept}
	if r := s.Do(t, http.MethodPost, "/api/v1/gateway/mcp", tok, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}, headers...); r.Status != http.StatusAccepted {
		t.Fatalf("initialized = %d %s", r.Status, r.Body)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.BaseURL()+"/api/v1/gateway/mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("opening the event stream: %v", err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("event stream = %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}

	if r := s.Do(t, http.MethodDelete, "/api/v1/gateway/mcp", tok, nil, headers...); r.Status != http.StatusNoContent {
		t.Fatalf("DELETE = %d %s, want 204", r.Status, r.Body)
	}
	// The session's end ends its stream.
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Fatalf("reading the stream to its end: %v", err)
	}
	resp.Body.Close()
	if r := s.Do(t, http.MethodGet, "/api/v1/gateway/mcp", tok, nil, headers...); r.Status != http.StatusNotFound || r.Code() != "resource_not_found" {
		t.Errorf("GET of a deleted session = %d %s, want 404 resource_not_found", r.Status, r.Body)
	}
	for _, c := range []struct {
		method, accept, field string
	}{
		{http.MethodGet, "text/event-stream", "Mcp-Session-Id"},
		{http.MethodDelete, "", "Mcp-Session-Id"},
		{http.MethodPost, "application/json", "Accept"},
	} {
		r := s.Do(t, c.method, "/api/v1/gateway/mcp", tok, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, "Accept", c.accept)
		if r.Status != http.StatusUnprocessableEntity || r.Code() != "validation_failed" || !contains(r.Body, `"`+c.field+`"`) {
			t.Errorf("%s without %s = %d %s, want 422 naming it", c.method, c.field, r.Status, r.Body)
		}
	}
}
