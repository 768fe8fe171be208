package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/identity-svc/internal/user"
	"github.com/paylane/paylane/libs/pgdb"
	"github.com/paylane/paylane/libs/tenancy"
)

const rolesKey = "roles_pkey"

// CreateRole stores a new role of the tenant; user.ErrRoleTaken when the
// name is in use.
func (s *Store) CreateRole(ctx context.Context, tenantID string, r user.Role, now time.Time) (user.Role, error) {
	err := tenancy.Do(ctx, s.pool, tenantID, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO roles (tenant_id, name, abilities, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $4)`, tenantID, r.Name, r.Abilities, now)
		if pgdb.IsUniqueViolation(err, rolesKey) {
			return user.ErrRoleTaken
		}
		return err
	})
	if err != nil {
		return user.Role{}, fmt.Errorf("creating role: %w", err)
	}
	return r, nil
}

// UpdateRole replaces a role's abilities; user.ErrRoleNotFound when the
// tenant has no such role. Its users hold the new abilities at once.
func (s *Store) UpdateRole(ctx context.Context, tenantID string, r user.Role, now time.Time) (user.Role, error) {
	err := tenancy.Do(ctx, s.pool, tenantID, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE roles SET abilities = $2, updated_at = $3 WHERE name = $1`, r.Name, r.Abilities, now)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return user.ErrRoleNotFound
		}
		return nil
	})
	if err != nil {
		return user.Role{}, fmt.Errorf("updating role: %w", err)
	}
	return r, nil
}

// lockLiveOwners locks the tenant's live owners and returns their ids, so
// that two disables at once cannot leave the tenant without one.
func lockLiveOwners(ctx context.Context, tx pgx.Tx) ([]string, error) {
	rows, err := tx.Query(ctx, `SELECT id FROM users WHERE role = $1 AND disabled_at IS NULL ORDER BY id FOR UPDATE`, user.RoleOwner)
	if err != nil {
		return nil, fmt.Errorf("locking owners: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("locking owners: %w", err)
	}
	return ids, nil
}
