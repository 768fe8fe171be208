package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/libs/pgdb"
)

const definitionColumns = `id, tenant_id, key, label, type, options, required, created_at, updated_at`

func scanDefinition(row pgx.Row) (contact.Definition, error) {
	var d contact.Definition
	var typ string
	err := row.Scan(&d.ID, &d.TenantID, &d.Key, &d.Label, &typ, &d.Options, &d.Required, &d.CreatedAt, &d.UpdatedAt)
	d.Type = contact.FieldType(typ)
	return d, err
}

// AllDefinitions returns every definition of the tenant, for validating
// custom fields (a tenant has a handful). They come from the store's cache
// when it holds them: up to definitionTTL old for another replica's writes,
// never older than this replica's own committed writes.
func (t *Tx) AllDefinitions(ctx context.Context) (contact.Definitions, error) {
	if t.wroteDefinitions {
		return t.readDefinitions(ctx)
	}
	defs, generation, ok := t.store.definitions.get(t.tenantID)
	if ok {
		return defs, nil
	}
	defs, err := t.readDefinitions(ctx)
	if err != nil {
		return contact.Definitions{}, err
	}
	t.store.definitions.put(t.tenantID, defs, generation)
	return defs, nil
}

// readDefinitions reads every definition of the tenant.
func (t *Tx) readDefinitions(ctx context.Context) (contact.Definitions, error) {
	rows, err := t.tx.Query(ctx, `SELECT `+definitionColumns+` FROM contact_field_definitions
		WHERE tenant_id = $1 ORDER BY key`, t.tenantID)
	if err != nil {
		return contact.Definitions{}, fmt.Errorf("reading field definitions: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (contact.Definition, error) { return scanDefinition(r) })
	if err != nil {
		return contact.Definitions{}, fmt.Errorf("reading field definitions: %w", err)
	}
	return contact.NewDefinitions(list), nil
}

// Definitions returns a page of definitions, newest first, and the total.
func (t *Tx) Definitions(ctx context.Context, limit, offset int) ([]contact.Definition, int, error) {
	var total int
	if err := t.tx.QueryRow(ctx, `SELECT count(*) FROM contact_field_definitions WHERE tenant_id = $1`, t.tenantID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("counting field definitions: %w", err)
	}
	if total == 0 || offset >= total {
		return nil, total, nil
	}
	rows, err := t.tx.Query(ctx, `SELECT `+definitionColumns+` FROM contact_field_definitions
		WHERE tenant_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`, t.tenantID, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("listing field definitions: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (contact.Definition, error) { return scanDefinition(r) })
	if err != nil {
		return nil, 0, fmt.Errorf("listing field definitions: %w", err)
	}
	return list, total, nil
}

// Definition returns one definition (locked when forUpdate), or
// contact.ErrNotFound.
func (t *Tx) Definition(ctx context.Context, id string, forUpdate bool) (contact.Definition, error) {
	q := `SELECT ` + definitionColumns + ` FROM contact_field_definitions WHERE tenant_id = $1 AND id = $2`
	if forUpdate {
		q += ` FOR UPDATE`
	}
	d, err := scanDefinition(t.tx.QueryRow(ctx, q, t.tenantID, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return contact.Definition{}, contact.ErrNotFound
	}
	if err != nil {
		return contact.Definition{}, fmt.Errorf("reading field definition: %w", err)
	}
	return d, nil
}

// InsertDefinition stores a new definition; contact.ErrKeyTaken when the
// tenant has the key already.
func (t *Tx) InsertDefinition(ctx context.Context, d contact.Definition) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO contact_field_definitions (`+definitionColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		d.ID, t.tenantID, d.Key, d.Label, string(d.Type), d.Options, d.Required, d.CreatedAt, d.UpdatedAt)
	t.definitionsChanged()
	if pgdb.IsUniqueViolation(err, "contact_field_definitions_key_key") {
		return contact.ErrKeyTaken
	}
	if err != nil {
		return fmt.Errorf("inserting field definition: %w", err)
	}
	return nil
}

// SaveDefinition writes the mutable fields of a definition.
func (t *Tx) SaveDefinition(ctx context.Context, d contact.Definition) error {
	_, err := t.tx.Exec(ctx, `UPDATE contact_field_definitions SET label = $3, options = $4, required = $5, updated_at = $6
		WHERE tenant_id = $1 AND id = $2`, t.tenantID, d.ID, d.Label, d.Options, d.Required, d.UpdatedAt)
	t.definitionsChanged()
	if err != nil {
		return fmt.Errorf("updating field definition: %w", err)
	}
	return nil
}

// DeleteDefinition removes a definition, or answers contact.ErrNotFound.
func (t *Tx) DeleteDefinition(ctx context.Context, id string) error {
	tag, err := t.tx.Exec(ctx, `DELETE FROM contact_field_definitions WHERE tenant_id = $1 AND id = $2`, t.tenantID, id)
	t.definitionsChanged()
	if err != nil {
		return fmt.Errorf("deleting field definition: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return contact.ErrNotFound
	}
	return nil
}
