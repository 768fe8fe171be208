package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/libs/pgdb"
	"github.com/paylane/paylane/optin-svc/internal/optin"
)

// ErrLiveConsent: the number already has a pending or confirmed consent.
var ErrLiveConsent = errors.New("the number already has a live consent")

const consentColumns = `id, tenant_id, contact_id, phone, coalesce(opt_in_code_id, ''), status, channel, source,
	consented_at, confirmed_at, revoked_at, created_at, updated_at`

func scanConsent(row pgx.Row) (optin.Consent, error) {
	var c optin.Consent
	err := row.Scan(&c.ID, &c.TenantID, &c.ContactID, &c.Phone, &c.OptInCodeID, &c.Status, &c.Channel, &c.Source,
		&c.ConsentedAt, &c.ConfirmedAt, &c.RevokedAt, &c.CreatedAt, &c.UpdatedAt)
	return c, err
}

func collectConsents(rows pgx.Rows, what string) ([]optin.Consent, error) {
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (optin.Consent, error) { return scanConsent(r) })
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return list, nil
}

// InsertConsent stores a consent; ErrLiveConsent when the number already
// has a live one on the channel.
func (t *Tx) InsertConsent(ctx context.Context, c optin.Consent) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO consents (id, tenant_id, contact_id, phone, opt_in_code_id, status,
		channel, source, consented_at, confirmed_at, revoked_at, created_at, updated_at)
		VALUES ($1, $2, $3, $4, nullif($5, ''), $6, $7, $8, $9, $10, $11, $12, $13)`,
		c.ID, t.tenantID, c.ContactID, c.Phone, c.OptInCodeID, c.Status, c.Channel, c.Source,
		c.ConsentedAt, c.ConfirmedAt, c.RevokedAt, c.CreatedAt, c.UpdatedAt)
	if pgdb.IsUniqueViolation(err, "consents_live_phone_key") {
		return ErrLiveConsent
	}
	if err != nil {
		return fmt.Errorf("inserting consent: %w", err)
	}
	return nil
}

// UpdateConsent writes the status fields of c.
func (t *Tx) UpdateConsent(ctx context.Context, c optin.Consent) error {
	_, err := t.tx.Exec(ctx, `UPDATE consents SET status = $2, confirmed_at = $3, revoked_at = $4, updated_at = $5
		WHERE id = $1`, c.ID, c.Status, c.ConfirmedAt, c.RevokedAt, c.UpdatedAt)
	if err != nil {
		return fmt.Errorf("updating consent: %w", err)
	}
	return nil
}

// LiveConsents returns the number's pending and confirmed consents, locked
// until the transaction ends.
func (t *Tx) LiveConsents(ctx context.Context, phone string) ([]optin.Consent, error) {
	rows, err := t.tx.Query(ctx, `SELECT `+consentColumns+` FROM consents
		WHERE phone = $1 AND status IN ('pending', 'confirmed') ORDER BY created_at, id FOR UPDATE`, phone)
	if err != nil {
		return nil, fmt.Errorf("reading live consents: %w", err)
	}
	return collectConsents(rows, "reading live consents")
}

// ConsentFilter narrows a consent list; zero fields do not filter.
type ConsentFilter struct {
	Status, OptInCodeID, ContactID string
	Since                          *time.Time
}

// ListConsents returns one page of the tenant's consents, newest
// consented_at first, and the total (listtotal: exact up to the store's
// ListCap, estimated above it). A page in the older half of an exact total
// is read from the oldest end (listtotal.Window).
func (t *Tx) ListConsents(ctx context.Context, f ConsentFilter, limit, offset int) ([]optin.Consent, listtotal.Total, error) {
	count, sel, args := consentsSQL(f)
	total, err := t.lists.Count(ctx, t.tx, t.listCap, t.tenantID, count, args...)
	if err != nil {
		return nil, listtotal.Total{}, fmt.Errorf("counting consents: %w", err)
	}
	w := total.Window(limit, offset)
	rows, err := t.tx.Query(ctx, w.Page(sel, consentsOrder, len(args)+1), w.Args(args)...)
	if err != nil {
		return nil, listtotal.Total{}, fmt.Errorf("listing consents: %w", err)
	}
	list, err := collectConsents(rows, "listing consents")
	return list, total, err
}

// where builds the WHERE of f (empty when f filters nothing) and its
// arguments: a condition and a parameter for each filter set only
// (listtotal.Where), so each combination is a statement of its own. With every filter in the text as
// "status = $1 unless $1 is empty", the generic plan of pgx's statement
// cache could use no index on a filtered column: for 20,000 consents in a
// tenant the unfiltered page read all of them (through consents_phone_idx
// or a sequential scan) and sorted them, instead of walking
// consents_list_idx.
func (f ConsentFilter) where() listtotal.Where {
	var w listtotal.Where
	if f.Status != "" {
		w.And("status = $%d", f.Status)
	}
	if f.OptInCodeID != "" {
		w.And("opt_in_code_id = $%d", f.OptInCodeID)
	}
	if f.ContactID != "" {
		w.And("contact_id = $%d", f.ContactID)
	}
	if f.Since != nil {
		w.And("consented_at >= $%d", *f.Since)
	}
	return w
}

// consentsSQL returns the count statement (a row per matching consent, for
// listtotal) and the selection of ListConsents filtered by f, and their
// arguments. Its page is the selection read by a listtotal.Window in
// consentsOrder (from the newest through consents_list_idx, or from the
// oldest by a backward scan of it).
func consentsSQL(f ConsentFilter) (count, sel string, args []any) {
	where := f.where()
	return `SELECT 1 FROM consents` + where.SQL(), `SELECT ` + consentColumns + ` FROM consents` + where.SQL(), where.Args()
}

// consentsOrder is the order of a list of consents: newest consented_at
// first.
const consentsOrder = "consented_at DESC, id DESC"

// ConsentCounts are how many consents of an opt-in code are in each status.
type ConsentCounts struct {
	Confirmed, Pending, Revoked int
}

// ConsentCountsByCode returns the counts of the tenant's consents per
// opt-in code; a code without consents is absent.
func (t *Tx) ConsentCountsByCode(ctx context.Context) (map[string]ConsentCounts, error) {
	rows, err := t.tx.Query(ctx, `SELECT opt_in_code_id, status, count(*) FROM consents
		WHERE opt_in_code_id IS NOT NULL GROUP BY opt_in_code_id, status`)
	if err != nil {
		return nil, fmt.Errorf("counting consents per code: %w", err)
	}
	defer rows.Close()
	out := map[string]ConsentCounts{}
	for rows.Next() {
		var (
			code, status string
			n            int
		)
		if err := rows.Scan(&code, &status, &n); err != nil {
			return nil, fmt.Errorf("counting consents per code: %w", err)
		}
		c := out[code]
		switch status {
		case optin.ConsentConfirmed:
			c.Confirmed = n
		case optin.ConsentPending:
			c.Pending = n
		case optin.ConsentRevoked:
			c.Revoked = n
		}
		out[code] = c
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("counting consents per code: %w", err)
	}
	return out, nil
}
