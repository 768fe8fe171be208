package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// PaymentRail is a tenant's payment provider configuration as stored: the
// secrets sealed.
type PaymentRail struct {
	ID                  string
	Provider            string
	Mode                string
	AccountID           string
	PublishableKey      *string
	SecretKeySealed     []byte
	SecretKeyLast4      string
	WebhookSecretSealed []byte
	// ConnectSecretSealed is the secret of a Connect endpoint, when set.
	ConnectSecretSealed []byte
	CreatedAt           time.Time
	UpdatedAt           time.Time
	RetiredAt           *time.Time
}

// ErrNoRail reports a tenant without a provider (the sandbox rail), or an
// unknown rail id.
var ErrNoRail = errors.New("store: no payment rail")

const railColumns = `id, provider, mode, account_id, publishable_key, secret_key_sealed, secret_key_last4,
 webhook_secret_sealed, connect_webhook_secret_sealed, created_at, updated_at, retired_at`

func scanRail(row pgx.Row) (PaymentRail, error) {
	var r PaymentRail
	err := row.Scan(&r.ID, &r.Provider, &r.Mode, &r.AccountID, &r.PublishableKey, &r.SecretKeySealed, &r.SecretKeyLast4,
		&r.WebhookSecretSealed, &r.ConnectSecretSealed, &r.CreatedAt, &r.UpdatedAt, &r.RetiredAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return PaymentRail{}, ErrNoRail
	}
	if err != nil {
		return PaymentRail{}, fmt.Errorf("reading payment rail: %w", err)
	}
	return r, nil
}

// CurrentRail returns the provider and id of the tenant's current rail, as
// new transactions get it: "sandbox" and nil without one.
func (t *Tx) CurrentRail(ctx context.Context) (string, *string, error) {
	r, err := t.PaymentRail(ctx, "")
	if errors.Is(err, ErrNoRail) {
		return "sandbox", nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	return r.Provider, &r.ID, nil
}

// PaymentRail returns the rail with id, or the tenant's current one when id
// is empty (ErrNoRail when there is none). A retired rail is returned by
// id: its transactions still settle through it.
func (t *Tx) PaymentRail(ctx context.Context, id string) (PaymentRail, error) {
	if id == "" {
		return scanRail(t.tx.QueryRow(ctx, "SELECT "+railColumns+" FROM payment_rails WHERE retired_at IS NULL"))
	}
	return scanRail(t.tx.QueryRow(ctx, "SELECT "+railColumns+" FROM payment_rails WHERE id = $1", id))
}

// LockCurrentRail returns the current rail locked FOR UPDATE, so two
// concurrent changes of the rail serialise.
func (t *Tx) LockCurrentRail(ctx context.Context) (PaymentRail, error) {
	return scanRail(t.tx.QueryRow(ctx, "SELECT "+railColumns+" FROM payment_rails WHERE retired_at IS NULL FOR UPDATE"))
}

// InsertRail stores a new current rail and its route.
func (t *Tx) InsertRail(ctx context.Context, r PaymentRail) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO payment_rails (tenant_id, `+railColumns+`)
 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, NULL)`,
		t.tenantID, r.ID, r.Provider, r.Mode, r.AccountID, r.PublishableKey, r.SecretKeySealed, r.SecretKeyLast4,
		r.WebhookSecretSealed, r.ConnectSecretSealed, r.CreatedAt, r.UpdatedAt)
	if err != nil {
		return fmt.Errorf("inserting payment rail: %w", err)
	}
	if _, err := t.tx.Exec(ctx, "INSERT INTO rail_routes (rail_id, tenant_id) VALUES ($1, $2)", r.ID, t.tenantID); err != nil {
		return fmt.Errorf("inserting rail route: %w", err)
	}
	return nil
}

// UpdateRail rewrites the keys of a rail.
func (t *Tx) UpdateRail(ctx context.Context, r PaymentRail) error {
	_, err := t.tx.Exec(ctx, `UPDATE payment_rails SET mode = $2, publishable_key = $3, secret_key_sealed = $4,
 secret_key_last4 = $5, webhook_secret_sealed = $6, connect_webhook_secret_sealed = $7, updated_at = $8 WHERE id = $1`,
		r.ID, r.Mode, r.PublishableKey, r.SecretKeySealed, r.SecretKeyLast4, r.WebhookSecretSealed, r.ConnectSecretSealed, r.UpdatedAt)
	if err != nil {
		return fmt.Errorf("updating payment rail: %w", err)
	}
	return nil
}

// RetireRail ends the tenant's current rail at now; later transactions use
// the sandbox rail (or the next one configured).
func (t *Tx) RetireRail(ctx context.Context, id string, now time.Time) error {
	if _, err := t.tx.Exec(ctx, "UPDATE payment_rails SET retired_at = $2, updated_at = $2 WHERE id = $1", id, now); err != nil {
		return fmt.Errorf("retiring payment rail: %w", err)
	}
	return nil
}

// RailTenant returns the tenant of a rail, for a provider's webhook that
// carries only the rail id (rail_routes: ids only, no row-level security).
func (s *Store) RailTenant(ctx context.Context, railID string) (string, error) {
	var tenantID string
	err := s.pool.QueryRow(ctx, "SELECT tenant_id FROM rail_routes WHERE rail_id = $1", railID).Scan(&tenantID)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", ErrNoRail
	}
	if err != nil {
		return "", fmt.Errorf("reading rail route: %w", err)
	}
	return tenantID, nil
}

// ClaimRailEvent records a provider event of a rail; false when it was
// recorded before (a replayed webhook).
func (t *Tx) ClaimRailEvent(ctx context.Context, railID, eventID, typ string, now time.Time) (bool, error) {
	tag, err := t.tx.Exec(ctx, `INSERT INTO rail_events (tenant_id, rail_id, event_id, type, created_at)
 VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`, t.tenantID, railID, eventID, typ, now)
	if err != nil {
		return false, fmt.Errorf("recording rail event: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

// RailAccount is a payout recipient's provider account.
type RailAccount struct {
	Phone     string
	AccountID string
	Ready     bool
}

// RailAccount returns the account of the recipient with phone on a rail;
// ok is false when none was created yet.
func (t *Tx) RailAccount(ctx context.Context, railID, phone string) (RailAccount, bool, error) {
	a := RailAccount{Phone: phone}
	err := t.tx.QueryRow(ctx, "SELECT account_id, ready FROM rail_accounts WHERE rail_id = $1 AND phone = $2",
		railID, phone).Scan(&a.AccountID, &a.Ready)
	if errors.Is(err, pgx.ErrNoRows) {
		return RailAccount{}, false, nil
	}
	if err != nil {
		return RailAccount{}, false, fmt.Errorf("reading rail account: %w", err)
	}
	return a, true, nil
}

// SaveRailAccount stores the account of a recipient (the first one wins:
// the provider's idempotency gives a concurrent creation the same id).
func (t *Tx) SaveRailAccount(ctx context.Context, railID string, a RailAccount, now time.Time) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO rail_accounts (tenant_id, rail_id, phone, account_id, ready, created_at, updated_at)
 VALUES ($1, $2, $3, $4, $5, $6, $6) ON CONFLICT (tenant_id, rail_id, phone) DO UPDATE
 SET ready = rail_accounts.ready OR EXCLUDED.ready, updated_at = EXCLUDED.updated_at`,
		t.tenantID, railID, a.Phone, a.AccountID, a.Ready, now)
	if err != nil {
		return fmt.Errorf("saving rail account: %w", err)
	}
	return nil
}

// MarkAccountReady records that an account can receive transfers and
// returns the phone it belongs to (ok false for an account Paylane did not
// create).
func (t *Tx) MarkAccountReady(ctx context.Context, railID, accountID string, now time.Time) (string, bool, error) {
	var phone string
	err := t.tx.QueryRow(ctx, `UPDATE rail_accounts SET ready = true, updated_at = $3
 WHERE rail_id = $1 AND account_id = $2 RETURNING phone`, railID, accountID, now).Scan(&phone)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("marking rail account ready: %w", err)
	}
	return phone, true, nil
}

// PendingPayablesOf lists the ids of the pending payables on a rail whose
// recipient has phone: they wait for the recipient's account.
func (t *Tx) PendingPayablesOf(ctx context.Context, railID, phone string) ([]string, error) {
	rows, err := t.tx.Query(ctx, `SELECT c.id FROM payables c JOIN transactions t ON t.id = c.transaction_id
 WHERE t.rail_id = $1 AND t.recipient_phone = $2 AND c.status = $3 AND c.deleted_at IS NULL ORDER BY c.created_at`,
		railID, phone, string(txn.Pending))
	if err != nil {
		return nil, fmt.Errorf("listing payables awaiting an account: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// SetProviderReference records the provider's id of a transaction's
// payment (a checkout opened) without changing its state.
func (t *Tx) SetProviderReference(ctx context.Context, transactionID, ref string) error {
	if _, err := t.tx.Exec(ctx, "UPDATE transactions SET provider_reference = $2 WHERE id = $1", transactionID, ref); err != nil {
		return fmt.Errorf("recording provider reference: %w", err)
	}
	return nil
}
