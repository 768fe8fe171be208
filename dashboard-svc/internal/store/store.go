// Package store keeps the dashboard's sessions in Postgres.
package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paylane/paylane/dashboard-svc/internal/session"
)

// Store reads and writes sessions.
type Store struct {
	pool *pgxpool.Pool
}

// New returns a store on the app pool.
func New(pool *pgxpool.Pool) *Store { return &Store{pool: pool} }

// Create stores a new session.
func (s *Store) Create(ctx context.Context, se session.Session) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO sessions (id_sha256, tenant_id, user_id, csrf_token, created_at, last_seen_at)
		VALUES ($1, $2, $3, $4, $5, $5)`, se.IDHash, se.TenantID, se.UserID, se.CSRFToken, se.CreatedAt)
	if err != nil {
		return fmt.Errorf("creating session: %w", err)
	}
	return nil
}

// Get reads the live session whose id hashes to idHash and, when it is
// stale, stamps last_seen_at = now. session.ErrNotFound for none, or one
// idle past session.IdleTimeout (which it deletes).
func (s *Store) Get(ctx context.Context, idHash []byte, now time.Time) (session.Session, error) {
	se := session.Session{IDHash: idHash}
	err := s.pool.QueryRow(ctx, `SELECT tenant_id, user_id, csrf_token, created_at, last_seen_at
		FROM sessions WHERE id_sha256 = $1`, idHash).Scan(&se.TenantID, &se.UserID, &se.CSRFToken, &se.CreatedAt, &se.LastSeenAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return session.Session{}, session.ErrNotFound
	}
	if err != nil {
		return session.Session{}, fmt.Errorf("reading session: %w", err)
	}
	if se.Expired(now) {
		if err := s.Delete(ctx, idHash); err != nil {
			return session.Session{}, err
		}
		return session.Session{}, session.ErrNotFound
	}
	if se.NeedsTouch(now) {
		if _, err := s.pool.Exec(ctx, `UPDATE sessions SET last_seen_at = $2 WHERE id_sha256 = $1`, idHash, now); err != nil {
			return session.Session{}, fmt.Errorf("touching session: %w", err)
		}
		se.LastSeenAt = now
	}
	return se, nil
}

// Delete ends a session.
func (s *Store) Delete(ctx context.Context, idHash []byte) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE id_sha256 = $1`, idHash); err != nil {
		return fmt.Errorf("deleting session: %w", err)
	}
	return nil
}

// DeleteUser ends every session of a user except keep (nil: all of them),
// after a password change.
func (s *Store) DeleteUser(ctx context.Context, tenantID, userID string, keep []byte) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE tenant_id = $1 AND user_id = $2
		AND ($3::bytea IS NULL OR id_sha256 <> $3)`, tenantID, userID, keep)
	if err != nil {
		return fmt.Errorf("deleting sessions: %w", err)
	}
	return nil
}

// Sweep deletes sessions idle past session.IdleTimeout at now.
func (s *Store) Sweep(ctx context.Context, now time.Time) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE last_seen_at <= $1`, now.Add(-session.IdleTimeout))
	if err != nil {
		return 0, fmt.Errorf("sweeping sessions: %w", err)
	}
	return tag.RowsAffected(), nil
}
