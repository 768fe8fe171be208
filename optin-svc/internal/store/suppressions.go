package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/optin-svc/internal/optin"
)

const suppressionColumns = `id, tenant_id, phone, coalesce(contact_phone_id, ''), reason, channel, source, created_at,
	stopped_at`

func scanSuppression(row pgx.Row) (optin.Suppression, error) {
	var s optin.Suppression
	err := row.Scan(&s.ID, &s.TenantID, &s.Phone, &s.ContactPhoneID, &s.Reason, &s.Channel, &s.Source, &s.CreatedAt,
		&s.StoppedAt)
	return s, err
}

// AddSuppression inserts s unless the number is already suppressed on the
// channel; it returns the entry that holds (the new one, or the one that
// was there: created false).
func (t *Tx) AddSuppression(ctx context.Context, s optin.Suppression) (optin.Suppression, bool, error) {
	row := t.tx.QueryRow(ctx, `INSERT INTO suppressions
		(id, tenant_id, phone, contact_phone_id, reason, channel, source, created_at)
		VALUES ($1, $2, $3, nullif($4, ''), $5, $6, $7, $8)
		ON CONFLICT (tenant_id, phone, channel) DO NOTHING
		RETURNING `+suppressionColumns,
		s.ID, t.tenantID, s.Phone, s.ContactPhoneID, s.Reason, s.Channel, s.Source, s.CreatedAt)
	created, err := scanSuppression(row)
	if err == nil {
		return created, true, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return optin.Suppression{}, false, fmt.Errorf("inserting suppression: %w", err)
	}
	existing, err := t.Suppression(ctx, s.Phone, s.Channel, false)
	if err != nil {
		return optin.Suppression{}, false, err
	}
	return existing, false, nil
}

// Suppression returns the entry of a number on a channel (ErrNotFound when
// none); forUpdate locks it until the transaction ends.
func (t *Tx) Suppression(ctx context.Context, phone, channel string, forUpdate bool) (optin.Suppression, error) {
	q := `SELECT ` + suppressionColumns + ` FROM suppressions WHERE phone = $1 AND channel = $2`
	if forUpdate {
		q += ` FOR UPDATE`
	}
	s, err := scanSuppression(t.tx.QueryRow(ctx, q, phone, channel))
	if errors.Is(err, pgx.ErrNoRows) {
		return optin.Suppression{}, optin.ErrNotFound
	}
	if err != nil {
		return optin.Suppression{}, fmt.Errorf("reading suppression: %w", err)
	}
	return s, nil
}

// SuppressionByID returns an entry by its id (ErrNotFound when none),
// locked until the transaction ends.
func (t *Tx) SuppressionByID(ctx context.Context, id string) (optin.Suppression, error) {
	s, err := scanSuppression(t.tx.QueryRow(ctx, `SELECT `+suppressionColumns+` FROM suppressions WHERE id = $1 FOR UPDATE`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return optin.Suppression{}, optin.ErrNotFound
	}
	if err != nil {
		return optin.Suppression{}, fmt.Errorf("reading suppression: %w", err)
	}
	return s, nil
}

// isSuppressedSQL answers whether a number ($1) is suppressed on a channel ($2).
const isSuppressedSQL = `SELECT EXISTS (SELECT 1 FROM suppressions WHERE phone = $1 AND channel = $2)`

// IsSuppressed reports whether the number may not receive messages on the
// channel.
func (t *Tx) IsSuppressed(ctx context.Context, phone, channel string) (bool, error) {
	var found bool
	err := t.tx.QueryRow(ctx, isSuppressedSQL, phone, channel).Scan(&found)
	if err != nil {
		return false, fmt.Errorf("checking suppression: %w", err)
	}
	return found, nil
}

// SuppressedAmong returns which of phones may not receive messages on
// the channel, in one statement (SuppressedAmongSQL: one probe of the
// suppression key per number).
func (t *Tx) SuppressedAmong(ctx context.Context, phones []string, channel string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(phones) == 0 {
		return out, nil
	}
	rows, err := t.tx.Query(ctx, SuppressedAmongSQL, phones, channel)
	if err != nil {
		return nil, fmt.Errorf("checking suppressions: %w", err)
	}
	found, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("checking suppressions: %w", err)
	}
	for _, p := range found {
		out[p] = true
	}
	return out, nil
}

// SetSuppressionStopped sets (a time) or clears (nil) the mark of the
// recipient's STOP on an entry of another source. It reports false when
// the entry is gone (deleted by a transaction that committed meanwhile).
func (t *Tx) SetSuppressionStopped(ctx context.Context, id string, at *time.Time) (bool, error) {
	tag, err := t.tx.Exec(ctx, `UPDATE suppressions SET stopped_at = $2 WHERE id = $1`, id, at)
	if err != nil {
		return false, fmt.Errorf("marking suppression stopped: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

// DeleteSuppression removes an entry by id.
func (t *Tx) DeleteSuppression(ctx context.Context, id string) error {
	if _, err := t.tx.Exec(ctx, `DELETE FROM suppressions WHERE id = $1`, id); err != nil {
		return fmt.Errorf("deleting suppression: %w", err)
	}
	return nil
}

// ListSuppressions returns one page of a channel's entries, newest first,
// and the channel's total (listtotal: exact up to the store's ListCap,
// estimated above it). A page in the older half of an exact total is read
// from the oldest end (listtotal.Window).
func (t *Tx) ListSuppressions(ctx context.Context, channel string, limit, offset int) ([]optin.Suppression, listtotal.Total, error) {
	total, err := t.lists.Count(ctx, t.tx, t.listCap, t.tenantID, `SELECT 1 FROM suppressions WHERE channel = $1`, channel)
	if err != nil {
		return nil, listtotal.Total{}, fmt.Errorf("counting suppressions: %w", err)
	}
	w := total.Window(limit, offset)
	rows, err := t.tx.Query(ctx, suppressionsPageSQL(w), w.Args([]any{channel})...)
	if err != nil {
		return nil, listtotal.Total{}, fmt.Errorf("listing suppressions: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (optin.Suppression, error) { return scanSuppression(r) })
	if err != nil {
		return nil, listtotal.Total{}, fmt.Errorf("listing suppressions: %w", err)
	}
	return list, total, nil
}

// suppressionsPageSQL is the page statement of ListSuppressions: a
// channel's ($1) entries read by w (from the newest through
// suppressions_list_idx, or from the oldest by a backward scan of it),
// LIMIT $2 and OFFSET $3, newest first either way.
func suppressionsPageSQL(w listtotal.Window) string {
	return w.Page(`SELECT `+suppressionColumns+` FROM suppressions WHERE channel = $1`, "created_at DESC, id DESC", 2)
}
