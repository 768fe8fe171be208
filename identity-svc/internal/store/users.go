package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/identity-svc/internal/tenant"
	"github.com/paylane/paylane/identity-svc/internal/user"
	"github.com/paylane/paylane/libs/pgdb"
	"github.com/paylane/paylane/libs/tenancy"
)

// userColumns are the columns scanUser reads: the user joined with its role.
const userColumns = `u.id, u.tenant_id, u.email, u.name, u.role, r.abilities, u.password_hash IS NOT NULL,
	u.disabled_at, u.last_sign_in_at, u.created_at, u.updated_at, coalesce(u.password_hash, '')`

const userFrom = ` FROM users u JOIN roles r ON r.tenant_id = u.tenant_id AND r.name = u.role`

const (
	usersEmailKey  = "users_tenant_email_key"
	usersRoleFKey  = "users_role_fkey"
	usersTenantKey = "users_tenant_id_fkey"
)

func scanUser(row pgx.Row) (user.User, error) {
	var u user.User
	err := row.Scan(&u.ID, &u.TenantID, &u.Email, &u.Name, &u.Role, &u.Abilities, &u.PasswordSet,
		&u.DisabledAt, &u.LastSignInAt, &u.CreatedAt, &u.UpdatedAt, &u.PasswordHash)
	return u, err
}

// insertDefaultRoles gives a new tenant the default roles, within tx (whose
// tenant scope is tenantID).
func insertDefaultRoles(ctx context.Context, tx pgx.Tx, tenantID string, now time.Time) error {
	for _, r := range user.DefaultRoles() {
		if _, err := tx.Exec(ctx, `INSERT INTO roles (tenant_id, name, abilities, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $4) ON CONFLICT DO NOTHING`, tenantID, r.Name, r.Abilities, now); err != nil {
			return fmt.Errorf("inserting role %s: %w", r.Name, err)
		}
	}
	return nil
}

// Link is a one-time set-password link as stored: the hash of its secret.
type Link struct {
	SecretSHA256 []byte
	ExpiresAt    time.Time
}

// CreateUser stores a new user of the tenant, its sign-in route and its
// set-password link, in one transaction. user.ErrEmailTaken, ErrUnknownRole,
// tenant.ErrNotFound.
func (s *Store) CreateUser(ctx context.Context, u user.User, link Link) (user.User, error) {
	var created user.User
	err := tenancy.Do(ctx, s.pool, u.TenantID, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO users (id, tenant_id, email, name, role, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $6)`, u.ID, u.TenantID, u.Email, u.Name, u.Role, u.CreatedAt)
		switch {
		case pgdb.IsUniqueViolation(err, usersEmailKey):
			return user.ErrEmailTaken
		case isForeignKeyViolation(err, usersRoleFKey):
			return user.ErrUnknownRole
		case isForeignKeyViolation(err, usersTenantKey):
			return tenant.ErrNotFound
		case err != nil:
			return fmt.Errorf("inserting user: %w", err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO user_routes (user_id, tenant_id, email) VALUES ($1, $2, $3)`,
			u.ID, u.TenantID, u.Email); err != nil {
			return fmt.Errorf("inserting user route: %w", err)
		}
		if err := insertLink(ctx, tx, u, link); err != nil {
			return err
		}
		created, err = scanUser(tx.QueryRow(ctx, `SELECT `+userColumns+userFrom+` WHERE u.id = $1`, u.ID))
		return err
	})
	if err != nil {
		return user.User{}, fmt.Errorf("creating user: %w", err)
	}
	return created, nil
}

func insertLink(ctx context.Context, tx pgx.Tx, u user.User, link Link) error {
	_, err := tx.Exec(ctx, `INSERT INTO password_links (secret_sha256, user_id, tenant_id, expires_at, created_at)
		VALUES ($1, $2, $3, $4, $5)`, link.SecretSHA256, u.ID, u.TenantID, link.ExpiresAt, u.CreatedAt)
	if err != nil {
		return fmt.Errorf("inserting password link: %w", err)
	}
	return nil
}

// GetUser reads one of the tenant's users with its role's abilities;
// user.ErrNotFound when there is none.
func (s *Store) GetUser(ctx context.Context, tenantID, id string) (user.User, error) {
	var u user.User
	err := tenancy.Read(ctx, s.pool, tenantID, func(tx pgx.Tx) error {
		var err error
		u, err = scanUser(tx.QueryRow(ctx, `SELECT `+userColumns+userFrom+` WHERE u.id = $1`, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return user.ErrNotFound
		}
		return err
	})
	if err != nil {
		return user.User{}, fmt.Errorf("reading user: %w", err)
	}
	return u, nil
}

// ListUsers reads a page of the tenant's users, newest first, and the total.
func (s *Store) ListUsers(ctx context.Context, tenantID string, limit, offset int) ([]user.User, int, error) {
	var (
		list  []user.User
		total int
	)
	err := tenancy.Read(ctx, s.pool, tenantID, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM users`).Scan(&total); err != nil {
			return fmt.Errorf("counting users: %w", err)
		}
		rows, err := tx.Query(ctx, `SELECT `+userColumns+userFrom+`
			ORDER BY u.created_at DESC, u.id DESC LIMIT $1 OFFSET $2`, limit, offset)
		if err != nil {
			return fmt.Errorf("querying users: %w", err)
		}
		list, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (user.User, error) { return scanUser(r) })
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("listing users: %w", err)
	}
	return list, total, nil
}

// ListRoles reads the tenant's roles by name.
func (s *Store) ListRoles(ctx context.Context, tenantID string) ([]user.Role, error) {
	var list []user.Role
	err := tenancy.Read(ctx, s.pool, tenantID, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT name, abilities FROM roles ORDER BY name`)
		if err != nil {
			return fmt.Errorf("querying roles: %w", err)
		}
		list, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (user.Role, error) {
			var role user.Role
			return role, r.Scan(&role.Name, &role.Abilities)
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("listing roles: %w", err)
	}
	return list, nil
}

// DisableUser sets disabled_at (once); user.ErrNotFound when there is none.
// With keepOwner, the tenant's last live owner stays: user.ErrLastOwner.
func (s *Store) DisableUser(ctx context.Context, tenantID, id string, now time.Time, keepOwner bool) (user.User, error) {
	var u user.User
	err := tenancy.Do(ctx, s.pool, tenantID, func(tx pgx.Tx) error {
		if keepOwner {
			owners, err := lockLiveOwners(ctx, tx)
			if err != nil {
				return err
			}
			if len(owners) == 1 && owners[0] == id {
				return user.ErrLastOwner
			}
		}
		tag, err := tx.Exec(ctx, `UPDATE users SET disabled_at = coalesce(disabled_at, $2), updated_at = $2 WHERE id = $1`, id, now)
		if err != nil {
			return fmt.Errorf("disabling user: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return user.ErrNotFound
		}
		u, err = scanUser(tx.QueryRow(ctx, `SELECT `+userColumns+userFrom+` WHERE u.id = $1`, id))
		return err
	})
	if err != nil {
		return user.User{}, fmt.Errorf("disabling user: %w", err)
	}
	return u, nil
}

// UsersByEmail reads every user, across tenants, whose sign-in email is
// email, oldest first, with their password hashes.
func (s *Store) UsersByEmail(ctx context.Context, email string) ([]user.User, error) {
	rows, err := s.pool.Query(ctx, `SELECT user_id, tenant_id FROM user_routes WHERE email = $1`, email)
	if err != nil {
		return nil, fmt.Errorf("routing email: %w", err)
	}
	type route struct{ user, tenant string }
	routes, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (route, error) {
		var x route
		return x, r.Scan(&x.user, &x.tenant)
	})
	if err != nil {
		return nil, fmt.Errorf("routing email: %w", err)
	}
	var out []user.User
	for _, r := range routes {
		u, err := s.GetUser(ctx, r.tenant, r.user)
		if errors.Is(err, user.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, nil
}

// SetPassword stores a live user's new password hash; user.ErrNotFound for
// no such live user.
func (s *Store) SetPassword(ctx context.Context, tenantID, id, hash string, now time.Time) error {
	err := tenancy.Do(ctx, s.pool, tenantID, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE users SET password_hash = $2, updated_at = $3
			WHERE id = $1 AND disabled_at IS NULL`, id, hash, now)
		if err != nil {
			return fmt.Errorf("updating password: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return user.ErrNotFound
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("setting password: %w", err)
	}
	return nil
}

// RecordSignIn stamps a user's last sign-in.
func (s *Store) RecordSignIn(ctx context.Context, tenantID, id string, now time.Time) error {
	return tenancy.Do(ctx, s.pool, tenantID, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `UPDATE users SET last_sign_in_at = $2 WHERE id = $1`, id, now)
		return err
	})
}
