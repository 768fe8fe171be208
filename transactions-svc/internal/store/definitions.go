package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/libs/pgdb"
	"github.com/paylane/paylane/transactions-svc/internal/fielddef"
)

const definitionColumns = "id, tenant_id, key, label, type, options, required, created_at, updated_at"

func scanDefinition(r pgx.Row) (fielddef.Definition, error) {
	var d fielddef.Definition
	var typ string
	err := r.Scan(&d.ID, &d.TenantID, &d.Key, &d.Label, &typ, &d.Options, &d.Required, &d.CreatedAt, &d.UpdatedAt)
	d.Type = fielddef.Type(typ)
	return d, err
}

// InsertDefinition stores a new definition; a taken key is
// fielddef.ErrKeyTaken.
func (t *Tx) InsertDefinition(ctx context.Context, d fielddef.Definition) error {
	_, err := t.tx.Exec(ctx, "INSERT INTO transaction_field_definitions ("+definitionColumns+
		") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
		d.ID, t.tenantID, d.Key, d.Label, d.Type, d.Options, d.Required, d.CreatedAt, d.UpdatedAt)
	if pgdb.IsUniqueViolation(err, "transaction_field_definitions_key_key") {
		return fielddef.ErrKeyTaken
	}
	if err != nil {
		return fmt.Errorf("inserting field definition: %w", err)
	}
	return nil
}

// Definition returns one definition, locked FOR UPDATE when lock is true.
func (t *Tx) Definition(ctx context.Context, id string, lock bool) (fielddef.Definition, error) {
	q := "SELECT " + definitionColumns + " FROM transaction_field_definitions WHERE id = $1"
	if lock {
		q += " FOR UPDATE"
	}
	d, err := scanDefinition(t.tx.QueryRow(ctx, q, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return fielddef.Definition{}, fielddef.ErrNotFound
	}
	if err != nil {
		return fielddef.Definition{}, fmt.Errorf("reading field definition: %w", err)
	}
	return d, nil
}

// UpdateDefinition writes label, options, required and updated_at.
func (t *Tx) UpdateDefinition(ctx context.Context, d fielddef.Definition) error {
	_, err := t.tx.Exec(ctx, `UPDATE transaction_field_definitions
 SET label = $2, options = $3, required = $4, updated_at = $5 WHERE id = $1`,
		d.ID, d.Label, d.Options, d.Required, d.UpdatedAt)
	if err != nil {
		return fmt.Errorf("updating field definition: %w", err)
	}
	return nil
}

// DeleteDefinition removes a definition; values already stored on
// transactions stay as they are.
func (t *Tx) DeleteDefinition(ctx context.Context, id string) error {
	tag, err := t.tx.Exec(ctx, "DELETE FROM transaction_field_definitions WHERE id = $1", id)
	if err != nil {
		return fmt.Errorf("deleting field definition: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return fielddef.ErrNotFound
	}
	return nil
}

// ListDefinitions returns a page of definitions, newest first, and the
// total.
func (t *Tx) ListDefinitions(ctx context.Context, limit, offset int) ([]fielddef.Definition, int, error) {
	var total int
	if err := t.tx.QueryRow(ctx, "SELECT count(*) FROM transaction_field_definitions").Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("counting field definitions: %w", err)
	}
	list, err := t.definitions(ctx, " ORDER BY created_at DESC, id DESC LIMIT $1 OFFSET $2", limit, offset)
	return list, total, err
}

// AllDefinitions returns every definition of the tenant, for validating
// custom_fields.
func (t *Tx) AllDefinitions(ctx context.Context) ([]fielddef.Definition, error) {
	return t.definitions(ctx, " ORDER BY key")
}

func (t *Tx) definitions(ctx context.Context, tail string, args ...any) ([]fielddef.Definition, error) {
	rows, err := t.tx.Query(ctx, "SELECT "+definitionColumns+" FROM transaction_field_definitions"+tail, args...)
	if err != nil {
		return nil, fmt.Errorf("listing field definitions: %w", err)
	}
	defer rows.Close()
	var out []fielddef.Definition
	for rows.Next() {
		d, err := scanDefinition(rows)
		if err != nil {
			return nil, fmt.Errorf("reading field definition: %w", err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}
