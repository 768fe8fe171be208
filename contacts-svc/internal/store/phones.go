package store

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
	ulid "github.com/paylane/paylane/libs/ids"
)

// ensurePhoneSQL returns the id of the tenant's record of a number, creating
// it when missing. DO UPDATE (a no-op change) rather than DO NOTHING makes
// RETURNING answer for an existing row too, and waits correctly for a
// concurrent insert of the same number. e164 is a domain (migration 00005):
// $3 is typed text, which pgx encodes.
const ensurePhoneSQL = `INSERT INTO phones (id, tenant_id, e164) VALUES ($1, $2, $3::text)
ON CONFLICT (tenant_id, e164) DO UPDATE SET e164 = EXCLUDED.e164
RETURNING id`

// EnsurePhone returns the id of the canonical phone record of e164.
func (t *Tx) EnsurePhone(ctx context.Context, e164 string) (string, error) {
	var id string
	if err := t.tx.QueryRow(ctx, ensurePhoneSQL, ulid.New(), t.tenantID, e164).Scan(&id); err != nil {
		return "", fmt.Errorf("ensuring phone record: %w", err)
	}
	return id, nil
}

// EnsurePhones is EnsurePhone for many numbers in one statement; it returns
// the record id of each number, and the ids of the records it created (the
// number had none): no contact can hold such a record yet, since its id is
// known to this transaction alone.
func (t *Tx) EnsurePhones(ctx context.Context, numbers []string) (ids map[string]string, created map[string]bool, err error) {
	// A number twice in one INSERT ... ON CONFLICT DO UPDATE is an error.
	e164s := slices.Compact(slices.Sorted(slices.Values(numbers)))
	newIDs := make([]string, len(e164s))
	mine := make(map[string]bool, len(e164s))
	for i := range e164s {
		newIDs[i] = ulid.New()
		mine[newIDs[i]] = true
	}
	rows, err := t.tx.Query(ctx, `INSERT INTO phones (id, tenant_id, e164)
		SELECT u.id, $1, u.e164 FROM unnest($2::text[], $3::text[]) AS u(id, e164)
		ON CONFLICT (tenant_id, e164) DO UPDATE SET e164 = EXCLUDED.e164
		RETURNING e164, id`, t.tenantID, newIDs, e164s)
	if err != nil {
		return nil, nil, fmt.Errorf("ensuring phone records: %w", err)
	}
	defer rows.Close()
	ids, created = make(map[string]string, len(e164s)), map[string]bool{}
	for rows.Next() {
		var e164, id string
		if err := rows.Scan(&e164, &id); err != nil {
			return nil, nil, fmt.Errorf("ensuring phone records: %w", err)
		}
		ids[e164] = id
		if mine[id] {
			created[id] = true
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("ensuring phone records: %w", err)
	}
	return ids, created, nil
}

// Phone returns the phone record with id, or contact.ErrNotFound.
func (t *Tx) Phone(ctx context.Context, id string) (contact.PhoneRecord, error) {
	var p contact.PhoneRecord
	err := t.tx.QueryRow(ctx, `SELECT id, e164, created_at FROM phones WHERE tenant_id = $1 AND id = $2`,
		t.tenantID, id).Scan(&p.ID, &p.E164, &p.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return contact.PhoneRecord{}, contact.ErrNotFound
	}
	if err != nil {
		return contact.PhoneRecord{}, fmt.Errorf("reading phone record: %w", err)
	}
	return p, nil
}
