// Package peers adapts the clients of the services batch-svc writes
// through to the use cases' Writer: contacts-svc's bulk upsert for contacts
// batches and transactions-svc's bulk create for receivables and payables,
// each called with a service token of the batch's tenant from identity-svc.
package peers

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	contacts "github.com/paylane/paylane/contacts-svc/client"
	identity "github.com/paylane/paylane/identity-svc/client"
	transactions "github.com/paylane/paylane/transactions-svc/client"

	"github.com/paylane/paylane/batch-svc/internal/app"
	"github.com/paylane/paylane/batch-svc/internal/batch"
)

// Tokens hands out internal JWTs for a tenant (identity-svc/client's
// ServiceToken).
type Tokens interface {
	ServiceToken(ctx context.Context, tenantID string, abilities []string) (string, error)
}

// contactAbilities are the abilities of the service tokens for
// contacts-svc's bulk upsert: a batch's rows are contact creates.
var contactAbilities = []string{"api:create-contact"}

// Contacts writes contacts batches through contacts-svc.
type Contacts struct {
	client *contacts.Client
	tokens Tokens
}

// NewContacts returns the contacts writer.
func NewContacts(client *contacts.Client, tokens Tokens) *Contacts {
	return &Contacts{client: client, tokens: tokens}
}

// Write implements app.Writer.
func (c *Contacts) Write(ctx context.Context, tenantID string, req app.WriteRequest) ([]app.RowResult, error) {
	token, err := c.tokens.ServiceToken(ctx, tenantID, contactAbilities)
	if err != nil {
		return nil, fmt.Errorf("getting a service token: %w", classifyToken(err))
	}
	rows, err := c.client.BulkUpsertRaw(ctx, token, contacts.BulkUpsertRawRequest{
		BatchID: req.BatchID, OnDuplicate: contacts.OnDuplicate(req.Options.OnDuplicate),
		FirstRowIndex: req.FirstRowIndex, EmitEvents: req.EmitEvents, Items: req.Items,
	})
	if err != nil {
		return nil, fmt.Errorf("bulk upsert: %w", classify(err))
	}
	out := make([]app.RowResult, len(rows))
	for i, r := range rows {
		out[i] = app.RowResult{RowIndex: r.RowIndex, Failed: r.Action == contacts.ActionFailed, Errors: r.Errors}
	}
	return out, nil
}

// classify sorts a writer's failure by what a worker does with it:
//   - no answer (transport errors, timeouts, the tenant's breaker open),
//     502, 503, 504, and 408 and 429 (the callee asking to try the request
//     later): transient, returned as it is (retried with backoff);
//   - 413: batch.ErrRejected and batch.ErrTooLarge (the request, not the
//     rows, was refused: smaller requests may pass);
//   - 401, 403, 404, 405: batch.ErrRejected (the batch itself is refused,
//     whatever its rows hold);
//   - any other 4xx: a *batch.RefusedError with the callee's messages per
//     field (some row cannot be written: the worker narrows it down);
//   - 500, 501, 505: batch.ErrServerFailed (possibly one row's content).
func classify(err error) error {
	status := statusOf(err)
	switch {
	case status == 0, status == http.StatusBadGateway, status == http.StatusServiceUnavailable,
		status == http.StatusGatewayTimeout, status == http.StatusRequestTimeout, status == http.StatusTooManyRequests:
		return err
	case status == http.StatusRequestEntityTooLarge:
		return fmt.Errorf("%w: %w: %w", batch.ErrRejected, batch.ErrTooLarge, err)
	case status == http.StatusUnauthorized, status == http.StatusForbidden, status == http.StatusNotFound,
		status == http.StatusMethodNotAllowed:
		return fmt.Errorf("%w: %w", batch.ErrRejected, err)
	case status >= 400 && status < 500:
		return &batch.RefusedError{Fields: fieldsOf(err), Err: err}
	case status >= 500:
		return fmt.Errorf("%w: %w", batch.ErrServerFailed, err)
	}
	return err
}

// classifyToken sorts a failure to get a service token: identity-svc
// refusing is the batch's problem (batch.ErrRejected), never a row's;
// the rest is transient.
func classifyToken(err error) error {
	if status := statusOf(err); status >= 400 && status < 500 && status != http.StatusRequestTimeout &&
		status != http.StatusTooManyRequests {
		return fmt.Errorf("%w: %w", batch.ErrRejected, err)
	}
	return err
}

// fieldsOf returns the messages per field of a 422 validation_failed
// answer in err's chain, or nil.
func fieldsOf(err error) map[string][]string {
	var ce *contacts.Error
	if errors.As(err, &ce) {
		return ce.Fields()
	}
	var te *transactions.Error
	if errors.As(err, &te) {
		return te.Fields()
	}
	return nil
}

// statusOf returns the HTTP status of a peer's error answer in err's
// chain, or 0.
func statusOf(err error) int {
	for _, of := range []func(error) int{contacts.StatusOf, transactions.StatusOf, identity.StatusOf} {
		if s := of(err); s != 0 {
			return s
		}
	}
	return 0
}

func asError(err error, target any) bool { return errors.As(err, target) }
