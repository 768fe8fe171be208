package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
)

// ContactsByID returns the tenant's contacts among ids, live and
// soft-deleted, in no particular order; ids the tenant does not hold are
// left out. One statement, by the primary key.
func (t *Tx) ContactsByID(ctx context.Context, ids []string) ([]contact.Contact, error) {
	rows, err := t.tx.Query(ctx, `SELECT `+contactColumns+contactFrom+
		` WHERE c.tenant_id = $1 AND c.id = ANY($2::text[])`, t.tenantID, ids)
	if err != nil {
		return nil, fmt.Errorf("reading contacts by id: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (contact.Contact, error) { return scanContact(r) })
	if err != nil {
		return nil, fmt.Errorf("reading contacts by id: %w", err)
	}
	return list, nil
}
