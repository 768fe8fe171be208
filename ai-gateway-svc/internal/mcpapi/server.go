// Package mcpapi serves the AI gateway as tools of a Model Context
// Protocol server (streamable HTTP, github.com/modelcontextprotocol/go-sdk):
// resolve_contact, create_contact, prepare_transaction,
// confirm_transaction and transaction_status. Each tool runs the same
// operation as its REST route (internal/app), with the caller's internal
// token; a tool error carries the REST answer's error envelope, code
// included.
package mcpapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/paylane/paylane/ai-gateway-svc/internal/app"
	"github.com/paylane/paylane/libs/authz"
)

// SessionTimeout closes a session idle this long; the client then starts
// a new one (MCP: a 404 for a session id means initialize again).
const SessionTimeout = 30 * time.Minute

// maxBody bounds a request body, as the gateway does for the API (1 MB).
const maxBody = 1 << 20

// instructions is what an agent is told about the server as a whole.
const instructions = `Paylane moves money by SMS: a receivable asks a contact to pay (a payment link), a payable pays a contact out (a link to choose where to receive it).
To pay or charge someone: resolve_contact by name (create_contact when nothing matched), prepare_transaction (a draft and a preview; nothing is sent), show the preview to the user, confirm_transaction only once they agree (this sends the SMS), then transaction_status to follow it.
Amounts are integers in minor units of the currency (1250 = $12.50). Pass an idempotency_key to create_contact, prepare_transaction and confirm_transaction and reuse it when retrying the same call, so a retry never acts twice.
A failed call returns the API's error envelope {"error": {"code", "message", "details"}}; switch on error.code (validation_failed, forbidden, resource_not_found, invalid_transition, ai_limit_exceeded, idempotency_conflict, rate_limited, service_unavailable).`

// NewHandler returns the MCP endpoint's HTTP handler. The request it serves
// must carry the verified claims and token (authz.WithClaims,
// authz.WithToken on its context): the Fiber route puts them there after
// the internal-token middleware and the ai_gateway flag.
func NewHandler(a *app.App, log *slog.Logger) http.Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "paylane", Title: "Paylane AI gateway", Version: "1.0.0"},
		&mcp.ServerOptions{Instructions: instructions, Logger: log})
	t := &tools{app: a}
	t.register(srv)
	// A POST is answered with one JSON message (the tools send no progress
	// in between), which any proxy carries; the session's GET stays the
	// event stream for what the server sends on its own.
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		JSONResponse:        true,
		SessionTimeout:      SessionTimeout,
		MaxRequestBodyBytes: maxBody,
		Logger:              log,
	})
	return auth.RequireBearerToken(tokenInfo, nil)(h)
}

// tokenInfo hands the SDK the caller the request context carries. The
// session is bound to the API token (tenant and token id), so another
// token cannot use it; every request still carries its own internal token,
// which the tools forward.
func tokenInfo(_ context.Context, _ string, req *http.Request) (*auth.TokenInfo, error) {
	claims := authz.FromContext(req.Context())
	token := authz.TokenFrom(req.Context())
	if claims == nil || token == "" {
		return nil, auth.ErrInvalidToken
	}
	exp := time.Now().Add(time.Minute)
	if claims.ExpiresAt != nil {
		exp = claims.ExpiresAt.Time
	}
	return &auth.TokenInfo{
		UserID:     fmt.Sprintf("%s/%d", claims.TenantID, claims.TokenID),
		Expiration: exp,
		Extra:      map[string]any{extraCaller: app.Caller{Claims: claims, Token: token}},
	}, nil
}

// extraCaller is the TokenInfo.Extra key of the caller.
const extraCaller = "paylane.caller"

// callerOf is the caller of a tool call: the claims and token of the HTTP
// request that carried it.
func callerOf(req *mcp.CallToolRequest) (app.Caller, error) {
	if req.Extra == nil || req.Extra.TokenInfo == nil {
		return app.Caller{}, errors.New("no token")
	}
	c, ok := req.Extra.TokenInfo.Extra[extraCaller].(app.Caller)
	if !ok {
		return app.Caller{}, errors.New("no caller")
	}
	return c, nil
}
