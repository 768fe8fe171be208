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
		return nil, fmt.Errorf("getting a service token: %w", classify(err))
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

// classify marks a refusal that retrying cannot change (a 4xx other than
// 408, 409 and 429) as batch.ErrRejected, a 413 also as batch.ErrTooLarge
// (the request, not the rows, was refused: smaller requests may pass);
// everything else (transport errors, timeouts, 5xx, an open breaker, a
// conflict with a concurrent write) stays transient.
func classify(err error) error {
	status := statusOf(err)
	switch {
	case status == 0, status >= 500, status == http.StatusRequestTimeout,
		status == http.StatusConflict, status == http.StatusTooManyRequests:
		return err
	case status == http.StatusRequestEntityTooLarge:
		return fmt.Errorf("%w: %w: %w", batch.ErrRejected, batch.ErrTooLarge, err)
	case status >= 400:
		return fmt.Errorf("%w: %w", batch.ErrRejected, err)
	}
	return err
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
