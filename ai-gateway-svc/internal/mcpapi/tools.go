package mcpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/paylane/paylane/ai-gateway-svc/internal/app"
	"github.com/paylane/paylane/ai-gateway-svc/internal/wire"
	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/reqid"
)

// tools are the MCP tools over the use cases.
type tools struct {
	app *app.App
}

// register adds every tool to srv.
func (t *tools) register(srv *mcp.Server) {
	srv.AddTool(resolveContactTool(), t.resolveContact)
	srv.AddTool(createContactTool(), t.createContact)
	srv.AddTool(prepareTransactionTool(), t.prepareTransaction)
	srv.AddTool(confirmTransactionTool(), t.confirmTransaction)
	srv.AddTool(transactionStatusTool(), t.transactionStatus)
}

func (t *tools) resolveContact(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return run(ctx, req, func(ctx context.Context, c app.Caller, args json.RawMessage) (any, error) {
		var in app.ResolveInput
		if err := httpx.DecodeBytes(args, &in); err != nil {
			return nil, err
		}
		res, err := t.app.ResolveContact(ctx, c, in)
		if err != nil {
			return nil, err
		}
		return wire.NewResolution(res), nil
	})
}

func (t *tools) createContact(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return run(ctx, req, func(ctx context.Context, c app.Caller, args json.RawMessage) (any, error) {
		var in struct {
			FirstName      string `json:"first_name"`
			LastName       string `json:"last_name"`
			Phone          string `json:"phone"`
			Email          string `json:"email"`
			IdempotencyKey string `json:"idempotency_key"`
		}
		if err := decodeKeyed(args, &in, &in.IdempotencyKey); err != nil {
			return nil, err
		}
		ct, err := t.app.NewContact(ctx, c, app.ContactInput{FirstName: in.FirstName, LastName: in.LastName,
			Phone: in.Phone, Email: in.Email}, in.IdempotencyKey)
		if err != nil {
			return nil, err
		}
		return wire.NewContact(ct), nil
	})
}

func (t *tools) prepareTransaction(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return run(ctx, req, func(ctx context.Context, c app.Caller, args json.RawMessage) (any, error) {
		var in struct {
			Direction      *string `json:"direction"`
			ContactID      string  `json:"contact_id"`
			Amount         int64   `json:"amount"`
			Currency       string  `json:"currency"`
			Description    string  `json:"description"`
			SendAt         string  `json:"send_at"`
			IdempotencyKey string  `json:"idempotency_key"`
		}
		if err := decodeKeyed(args, &in, &in.IdempotencyKey); err != nil {
			return nil, err
		}
		d, err := t.app.PrepareDraft(ctx, c, app.PrepareInput{Direction: in.Direction, ContactID: in.ContactID,
			Amount: in.Amount, Currency: in.Currency, Description: in.Description, SendAt: in.SendAt}, in.IdempotencyKey)
		if err != nil {
			return nil, err
		}
		return wire.NewDraft(d), nil
	})
}

func (t *tools) confirmTransaction(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return run(ctx, req, func(ctx context.Context, c app.Caller, args json.RawMessage) (any, error) {
		var in struct {
			TransactionID  string  `json:"transaction_id"`
			SendAt         *string `json:"send_at"`
			IdempotencyKey string  `json:"idempotency_key"`
		}
		if err := decodeKeyed(args, &in, &in.IdempotencyKey); err != nil {
			return nil, err
		}
		if in.TransactionID == "" {
			return nil, apierr.Field("transaction_id", "The transaction_id field is required.")
		}
		out, err := t.app.ConfirmDraft(ctx, c, in.TransactionID, in.SendAt, in.IdempotencyKey)
		if err != nil {
			return nil, err
		}
		return wire.Confirmed{TransactionID: out.TransactionID, Status: out.Status}, nil
	})
}

func (t *tools) transactionStatus(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return run(ctx, req, func(ctx context.Context, c app.Caller, args json.RawMessage) (any, error) {
		var in struct {
			Reference string `json:"reference"`
		}
		if err := httpx.DecodeBytes(args, &in); err != nil {
			return nil, err
		}
		if in.Reference == "" {
			return nil, apierr.Field("reference", "The reference field is required.")
		}
		return t.app.TransactionStatus(ctx, c, in.Reference)
	})
}

// decodeKeyed reads a tool's arguments strictly, as the REST routes read a
// body (an unknown argument is validation_failed naming it), and checks
// the idempotency key among them (key, a field of dst) as the API checks
// the Idempotency-Key header.
func decodeKeyed(args json.RawMessage, dst any, key *string) error {
	if err := httpx.DecodeBytes(args, dst); err != nil {
		return err
	}
	return app.CheckIdempotencyKey("idempotency_key", *key)
}

// operation is a tool's work: its arguments in, the REST answer's data out.
type operation func(ctx context.Context, c app.Caller, args json.RawMessage) (any, error)

// run calls op for the caller of req and renders its outcome: the data as
// structured content and as JSON text; an error as a tool error whose
// content is the REST error envelope, so an agent switches on error.code.
// A replayed answer (the same idempotency key and arguments) says so in
// the result's _meta.
func run(ctx context.Context, req *mcp.CallToolRequest, op operation) (*mcp.CallToolResult, error) {
	requestID := ""
	if req.Extra != nil {
		requestID = req.Extra.Header.Get(reqid.Header)
	}
	ctx = reqid.With(ctx, requestID)
	ctx, fwd := idempotency.WithForwarded(ctx)
	c, err := callerOf(req)
	if err != nil {
		return errorResult(apierr.Unauthenticated(), requestID), nil
	}
	args := req.Params.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	data, err := op(ctx, c, args)
	if err != nil {
		return errorResult(err, requestID), nil
	}
	text, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}, StructuredContent: json.RawMessage(text)}
	if fwd.Replayed {
		res.Meta = mcp.Meta{"idempotent_replayed": true, "original_request_id": fwd.OriginalRequestID}
	}
	return res, nil
}

// errorResult renders err as the tool error an agent reads: the envelope
// of the REST answer, with the request id of the MCP request.
func errorResult(err error, requestID string) *mcp.CallToolResult {
	var ae *apierr.Error
	if !errors.As(err, &ae) {
		ae = apierr.New(http.StatusInternalServerError, apierr.CodeServerError, "The server could not complete the call.")
	}
	body := ae.Marshal(requestID)
	return &mcp.CallToolResult{
		IsError:           true,
		Content:           []mcp.Content{&mcp.TextContent{Text: string(body)}},
		StructuredContent: json.RawMessage(body),
		Meta:              mcp.Meta{"status": ae.Status},
	}
}
