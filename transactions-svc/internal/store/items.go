package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// table returns the child table of a direction.
func table(d txn.Direction) string {
	if d == txn.Payable {
		return "payables"
	}
	return "receivables"
}

// commonColumns are read from the child c and its parent t for both
// directions, in the order scanTargets expects.
const commonColumns = `c.id, c.tenant_id, c.transaction_id, c.contact_id,
 t.recipient_first_name, t.recipient_last_name, t.recipient_phone,
 c.external_id, c.amount, c.currency, c.description, c.due_date::text, c.status, c.send_at,
 c.link_ttl_hours, c.link_expires_at, c.link_revoked_at,
 t.campaign_id, t.campaign_steps_sent, t.last_sms_at, c.custom_fields, c.failure_reason, c.reference,
 t.latest_message, c.created_at, c.updated_at, c.deleted_at, t.rail, t.rail_id, t.provider_reference`

const (
	receivableColumns = `, c.payer_verified_at, c.paid_at, c.payment_method, c.decline_count, c.card_brand, c.card_last4`
	payableColumns    = `, c.destination_type, c.destination_last4, c.identity_verified_at, c.disbursed_at, c.disbursement_attempts`
)

// selectItems is the SELECT ... FROM of a direction's items with their
// parent; callers add WHERE, ORDER and locking clauses.
func selectItems(d txn.Direction) string {
	cols := commonColumns + receivableColumns
	if d == txn.Payable {
		cols = commonColumns + payableColumns
	}
	return "SELECT " + cols + " FROM " + table(d) + " c JOIN transactions t ON t.id = c.transaction_id"
}

// message is latest_message as stored.
type message struct {
	Status    string     `json:"status"`
	Channel   string     `json:"channel"`
	SentAt    *time.Time `json:"sent_at"`
	UpdatedAt time.Time  `json:"updated_at"`
}

// row holds the scanned values that need conversion.
type row struct {
	destType, destLast4 *string
	latest              *message
	status              string
}

// scanTargets returns the scan destinations of selectItems(it.Direction).
func scanTargets(it *txn.Item, r *row) []any {
	targets := []any{&it.ID, &it.TenantID, &it.TransactionID, &it.ContactID,
		&it.Recipient.FirstName, &it.Recipient.LastName, &it.Recipient.Phone,
		&it.ExternalID, &it.Amount, &it.Currency, &it.Description, &it.DueDate, &r.status, &it.SendAt,
		&it.LinkTTLHours, &it.Link.ExpiresAt, &it.Link.RevokedAt,
		&it.CampaignID, &it.Progress.StepsSent, &it.Progress.LastSMSAt, &it.CustomFields, &it.FailureReason, &it.Reference,
		&r.latest, &it.CreatedAt, &it.UpdatedAt, &it.DeletedAt, &it.Rail, &it.RailID, &it.ProviderReference}
	if it.Direction == txn.Payable {
		return append(targets, &r.destType, &r.destLast4, &it.IdentityVerifiedAt, &it.DisbursedAt, &it.DisbursementAttempts)
	}
	return append(targets, &it.PayerVerifiedAt, &it.PaidAt, &it.PaymentMethod, &it.Declines, &it.CardBrand, &it.CardLast4)
}

// finish converts the scanned values of r into it.
func (r *row) finish(it *txn.Item) {
	it.Status = txn.State(r.status)
	if r.destType != nil && r.destLast4 != nil {
		it.Destination = &txn.Destination{Type: *r.destType, Last4: *r.destLast4}
	}
	if r.latest != nil {
		it.LatestMessage = &txn.Message{Status: r.latest.Status, Channel: r.latest.Channel, SentAt: r.latest.SentAt, UpdatedAt: r.latest.UpdatedAt}
	}
	if it.CustomFields == nil {
		it.CustomFields = map[string]json.RawMessage{}
	}
}

// scanItem reads one item of direction d.
func scanItem(s pgx.Row, d txn.Direction) (txn.Item, error) {
	it := txn.Item{Direction: d}
	var r row
	if err := s.Scan(scanTargets(&it, &r)...); err != nil {
		return txn.Item{}, err
	}
	r.finish(&it)
	return it, nil
}

// Item returns the live (not deleted) item of direction d with id.
func (t *Tx) Item(ctx context.Context, d txn.Direction, id string) (txn.Item, error) {
	return t.item(ctx, d, "c.id = $1 AND c.deleted_at IS NULL", "", id)
}

// LockItem returns the live item of direction d with id, locked FOR UPDATE
// (child and parent) until the transaction ends: state changes load, decide
// and write under this lock, so two concurrent actions cannot both win.
func (t *Tx) LockItem(ctx context.Context, d txn.Direction, id string) (txn.Item, error) {
	return t.item(ctx, d, "c.id = $1 AND c.deleted_at IS NULL", " FOR UPDATE OF c, t", id)
}

// LockByTransaction returns the live item whose parent transaction is id,
// locked like LockItem.
func (t *Tx) LockByTransaction(ctx context.Context, id string) (txn.Item, error) {
	var dir string
	err := t.tx.QueryRow(ctx, "SELECT direction FROM transactions WHERE id = $1", id).Scan(&dir)
	if errors.Is(err, pgx.ErrNoRows) {
		return txn.Item{}, txn.ErrNotFound
	}
	if err != nil {
		return txn.Item{}, fmt.Errorf("reading transaction: %w", err)
	}
	return t.item(ctx, txn.Direction(dir), "c.transaction_id = $1 AND c.deleted_at IS NULL", " FOR UPDATE OF c, t", id)
}

func (t *Tx) item(ctx context.Context, d txn.Direction, where, lock string, args ...any) (txn.Item, error) {
	it, err := scanItem(t.tx.QueryRow(ctx, selectItems(d)+" WHERE "+where+lock, args...), d)
	if errors.Is(err, pgx.ErrNoRows) {
		return txn.Item{}, txn.ErrNotFound
	}
	if err != nil {
		return txn.Item{}, fmt.Errorf("reading %s: %w", d, err)
	}
	return it, nil
}

// InsertItem stores a new item, its parent transaction and its link route.
func (t *Tx) InsertItem(ctx context.Context, it txn.Item) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO transactions (id, tenant_id, direction, contact_id, campaign_id, status,
 recipient_first_name, recipient_last_name, recipient_phone, campaign_steps_sent, last_sms_at, created_at, updated_at)
 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
		it.TransactionID, t.tenantID, it.Direction, it.ContactID, it.CampaignID, it.Status,
		it.Recipient.FirstName, it.Recipient.LastName, it.Recipient.Phone, it.Progress.StepsSent, it.Progress.LastSMSAt,
		it.CreatedAt, it.UpdatedAt)
	if err != nil {
		return fmt.Errorf("inserting transaction: %w", err)
	}
	cols, vals := childValues(it)
	names := make([]string, len(cols)+1)
	for i := range names {
		names[i] = fmt.Sprintf("$%d", i+1)
	}
	_, err = t.tx.Exec(ctx, "INSERT INTO "+table(it.Direction)+" (tenant_id, "+strings.Join(cols, ", ")+
		") VALUES ("+strings.Join(names, ", ")+")", append([]any{t.tenantID}, vals...)...)
	if err != nil {
		return fmt.Errorf("inserting %s: %w", it.Direction, err)
	}
	_, err = t.tx.Exec(ctx, "INSERT INTO link_routes (item_id, tenant_id, direction) VALUES ($1, $2, $3)",
		it.ID, t.tenantID, it.Direction)
	if err != nil {
		return fmt.Errorf("inserting link route: %w", err)
	}
	return nil
}

// childValues lists the child row's columns and values; the first pair is
// (id, it.ID), the key of updates.
func childValues(it txn.Item) ([]string, []any) {
	cols := []string{"id", "transaction_id", "contact_id", "external_id", "amount", "currency", "description",
		"due_date", "status", "send_at", "link_ttl_hours", "link_expires_at", "link_revoked_at", "custom_fields",
		"failure_reason", "reference", "created_at", "updated_at", "deleted_at"}
	custom := it.CustomFields
	if custom == nil {
		custom = map[string]json.RawMessage{}
	}
	vals := []any{it.ID, it.TransactionID, it.ContactID, it.ExternalID, it.Amount, it.Currency, it.Description,
		it.DueDate, it.Status, it.SendAt, it.LinkTTLHours, it.Link.ExpiresAt, it.Link.RevokedAt, custom,
		it.FailureReason, it.Reference, it.CreatedAt, it.UpdatedAt, it.DeletedAt}
	if it.Direction == txn.Payable {
		var typ, last4 *string
		if it.Destination != nil {
			typ, last4 = &it.Destination.Type, &it.Destination.Last4
		}
		cols = append(cols, "destination_type", "destination_last4", "identity_verified_at", "disbursed_at", "disbursement_attempts")
		return cols, append(vals, typ, last4, it.IdentityVerifiedAt, it.DisbursedAt, it.DisbursementAttempts)
	}
	cols = append(cols, "payer_verified_at", "paid_at", "payment_method", "decline_count", "card_brand", "card_last4")
	return cols, append(vals, it.PayerVerifiedAt, it.PaidAt, it.PaymentMethod, it.Declines, it.CardBrand, it.CardLast4)
}

// UpdateItem writes every mutable column of it and mirrors its status, campaign
// and progress on the parent transaction.
func (t *Tx) UpdateItem(ctx context.Context, it txn.Item) error {
	cols, vals := childValues(it)
	sets := make([]string, 0, len(cols))
	for i, c := range cols[1:] {
		sets = append(sets, fmt.Sprintf("%s = $%d", c, i+2))
	}
	tag, err := t.tx.Exec(ctx, "UPDATE "+table(it.Direction)+" SET "+strings.Join(sets, ", ")+" WHERE id = $1", vals...)
	if err != nil {
		return fmt.Errorf("updating %s: %w", it.Direction, err)
	}
	if tag.RowsAffected() != 1 {
		return txn.ErrNotFound
	}
	_, err = t.tx.Exec(ctx, `UPDATE transactions SET status = $2, campaign_id = $3, campaign_steps_sent = $4,
 last_sms_at = $5, updated_at = $6, provider_reference = $7 WHERE id = $1`,
		it.TransactionID, it.Status, it.CampaignID, it.Progress.StepsSent, it.Progress.LastSMSAt, it.UpdatedAt, it.ProviderReference)
	if err != nil {
		return fmt.Errorf("updating transaction: %w", err)
	}
	return nil
}

// ItemByReference returns the live item a reference names: its parent
// transaction's id, or the receivable's or payable's own id.
func (t *Tx) ItemByReference(ctx context.Context, ref string) (txn.Item, error) {
	var dir string
	err := t.tx.QueryRow(ctx, `SELECT direction FROM transactions WHERE id = $1
 UNION ALL SELECT 'receivable' FROM receivables WHERE id = $1
 UNION ALL SELECT 'payable' FROM payables WHERE id = $1 LIMIT 1`, ref).Scan(&dir)
	if errors.Is(err, pgx.ErrNoRows) {
		return txn.Item{}, txn.ErrNotFound
	}
	if err != nil {
		return txn.Item{}, fmt.Errorf("resolving reference: %w", err)
	}
	return t.item(ctx, txn.Direction(dir), "(c.id = $1 OR c.transaction_id = $1) AND c.deleted_at IS NULL", "", ref)
}
