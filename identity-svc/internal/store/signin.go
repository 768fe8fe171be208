package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/identity-svc/internal/user"
	"github.com/paylane/paylane/libs/tenancy"
)

// Lockout rule: MaxSignInFailures failures of one email within
// SignInWindow lock it for SignInLock.
const (
	MaxSignInFailures = 5
	SignInWindow      = 15 * time.Minute
	SignInLock        = 15 * time.Minute
)

// SignInLockedUntil reports when the email's lockout ends, or nil when it
// is not locked at now.
func (s *Store) SignInLockedUntil(ctx context.Context, email string, now time.Time) (*time.Time, error) {
	var until *time.Time
	err := s.pool.QueryRow(ctx, `SELECT locked_until FROM sign_in_attempts WHERE email = $1`, email).Scan(&until)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && (until == nil || !until.After(now))) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading sign-in lock: %w", err)
	}
	return until, nil
}

// RecordSignInFailure counts a failed sign-in of email at now; the
// MaxSignInFailures-th within SignInWindow locks the email until
// now+SignInLock, which it returns (nil otherwise).
func (s *Store) RecordSignInFailure(ctx context.Context, email string, now time.Time) (*time.Time, error) {
	var failures int
	err := s.pool.QueryRow(ctx, `
		INSERT INTO sign_in_attempts AS a (email, failures, window_started_at) VALUES ($1, 1, $2)
		ON CONFLICT (email) DO UPDATE SET
			failures = CASE WHEN a.window_started_at <= $3 THEN 1 ELSE a.failures + 1 END,
			window_started_at = CASE WHEN a.window_started_at <= $3 THEN $2 ELSE a.window_started_at END
		RETURNING failures`, email, now, now.Add(-SignInWindow)).Scan(&failures)
	if err != nil {
		return nil, fmt.Errorf("recording sign-in failure: %w", err)
	}
	if failures < MaxSignInFailures {
		return nil, nil
	}
	until := now.Add(SignInLock)
	if _, err := s.pool.Exec(ctx, `UPDATE sign_in_attempts SET locked_until = $2, failures = 0, window_started_at = $3
		WHERE email = $1`, email, until, now); err != nil {
		return nil, fmt.Errorf("locking sign-in: %w", err)
	}
	return &until, nil
}

// ClearSignInFailures forgets an email's failures after a good sign-in.
func (s *Store) ClearSignInFailures(ctx context.Context, email string) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM sign_in_attempts WHERE email = $1`, email); err != nil {
		return fmt.Errorf("clearing sign-in failures: %w", err)
	}
	return nil
}

// UseLink spends a live set-password link (unused, unexpired, of a live
// user) and sets the user's password hash, in one transaction; it returns
// the user. user.ErrLinkInvalid for any link that does not open.
func (s *Store) UseLink(ctx context.Context, secretHash []byte, hash string, now time.Time) (user.User, error) {
	var tenantID string
	err := s.pool.QueryRow(ctx, `SELECT tenant_id FROM password_links WHERE secret_sha256 = $1`, secretHash).Scan(&tenantID)
	if errors.Is(err, pgx.ErrNoRows) {
		return user.User{}, user.ErrLinkInvalid
	}
	if err != nil {
		return user.User{}, fmt.Errorf("routing link: %w", err)
	}
	var u user.User
	err = tenancy.Do(ctx, s.pool, tenantID, func(tx pgx.Tx) error {
		var userID string
		err := tx.QueryRow(ctx, `UPDATE password_links SET used_at = $2
			WHERE secret_sha256 = $1 AND used_at IS NULL AND expires_at > $2 RETURNING user_id`,
			secretHash, now).Scan(&userID)
		if errors.Is(err, pgx.ErrNoRows) {
			return user.ErrLinkInvalid
		}
		if err != nil {
			return fmt.Errorf("spending link: %w", err)
		}
		tag, err := tx.Exec(ctx, `UPDATE users SET password_hash = $2, updated_at = $3
			WHERE id = $1 AND disabled_at IS NULL`, userID, hash, now)
		if err != nil {
			return fmt.Errorf("setting password: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return user.ErrLinkInvalid
		}
		u, err = scanUser(tx.QueryRow(ctx, `SELECT `+userColumns+userFrom+` WHERE u.id = $1`, userID))
		return err
	})
	if err != nil {
		return user.User{}, fmt.Errorf("using set-password link: %w", err)
	}
	return u, nil
}

// NewLink stores another set-password link for a user (a reset).
func (s *Store) NewLink(ctx context.Context, u user.User, link Link, now time.Time) error {
	return tenancy.Do(ctx, s.pool, u.TenantID, func(tx pgx.Tx) error {
		u.CreatedAt = now
		return insertLink(ctx, tx, u, link)
	})
}
