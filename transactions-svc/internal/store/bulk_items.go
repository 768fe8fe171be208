package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// newItemArrays are items of one direction as the column arrays of an
// unnest: the columns a new item sets (new items have no settlement,
// destination or revoked link yet, so those keep their defaults), which
// hold the fields a PUT changes.
type newItemArrays struct {
	ids, txIDs, contactIDs, currencies, statuses, customFields, phones, firstNames, lastNames []string
	externalIDs, descriptions, dueDates, campaignIDs                                          []*string
	amounts                                                                                   []int64
	ttls                                                                                      []int32
	sendAt, linkExpiresAt, lastSMSAt                                                          []*time.Time
	createdAt, updatedAt                                                                      []time.Time
}

func arraysOfNew(list []txn.Item) (newItemArrays, error) {
	n := len(list)
	a := newItemArrays{
		ids: make([]string, n), txIDs: make([]string, n), contactIDs: make([]string, n), currencies: make([]string, n),
		statuses: make([]string, n), customFields: make([]string, n), phones: make([]string, n),
		firstNames: make([]string, n), lastNames: make([]string, n),
		externalIDs: make([]*string, n), descriptions: make([]*string, n), dueDates: make([]*string, n),
		campaignIDs: make([]*string, n), amounts: make([]int64, n), ttls: make([]int32, n),
		sendAt: make([]*time.Time, n), linkExpiresAt: make([]*time.Time, n), lastSMSAt: make([]*time.Time, n),
		createdAt: make([]time.Time, n), updatedAt: make([]time.Time, n),
	}
	for i, it := range list {
		custom := it.CustomFields
		if custom == nil {
			custom = map[string]json.RawMessage{}
		}
		cf, err := json.Marshal(custom)
		if err != nil {
			return a, fmt.Errorf("encoding custom fields: %w", err)
		}
		a.ids[i], a.txIDs[i], a.contactIDs[i], a.currencies[i] = it.ID, it.TransactionID, it.ContactID, it.Currency
		a.statuses[i], a.customFields[i], a.phones[i] = string(it.Status), string(cf), it.Recipient.Phone
		a.firstNames[i], a.lastNames[i] = it.Recipient.FirstName, it.Recipient.LastName
		a.externalIDs[i], a.descriptions[i], a.dueDates[i], a.campaignIDs[i] = it.ExternalID, it.Description, it.DueDate, it.CampaignID
		a.amounts[i], a.ttls[i] = it.Amount, int32(it.LinkTTLHours)
		a.sendAt[i], a.linkExpiresAt[i], a.lastSMSAt[i] = it.SendAt, it.Link.ExpiresAt, it.Progress.LastSMSAt
		a.createdAt[i], a.updatedAt[i] = it.CreatedAt, it.UpdatedAt
	}
	return a, nil
}

// InsertItems stores new items of direction d with their parent
// transactions and link routes: three set-based statements sent as one
// pipelined batch, whatever the number of items.
func (t *Tx) InsertItems(ctx context.Context, d txn.Direction, list []txn.Item) error {
	if len(list) == 0 {
		return nil
	}
	a, err := arraysOfNew(list)
	if err != nil {
		return err
	}
	b := &pgx.Batch{}
	b.Queue(`INSERT INTO transactions (id, tenant_id, direction, contact_id, campaign_id, status,
 recipient_first_name, recipient_last_name, recipient_phone, last_sms_at, created_at, updated_at)
 SELECT u.id, $1, $2, u.contact_id, u.campaign_id, u.status, u.first_name, u.last_name, u.phone, u.last_sms_at, u.created_at, u.updated_at
   FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::timestamptz[], $11::timestamptz[], $12::timestamptz[])
     AS u(id, contact_id, campaign_id, status, first_name, last_name, phone, last_sms_at, created_at, updated_at)`,
		t.tenantID, d, a.txIDs, a.contactIDs, a.campaignIDs, a.statuses, a.firstNames, a.lastNames, a.phones, a.lastSMSAt,
		a.createdAt, a.updatedAt)
	b.Queue(`INSERT INTO `+table(d)+` (id, tenant_id, transaction_id, contact_id, external_id, amount, currency, description,
 due_date, status, send_at, link_ttl_hours, link_expires_at, custom_fields, created_at, updated_at)
 SELECT u.id, $1, u.transaction_id, u.contact_id, u.external_id, u.amount, u.currency, u.description,
        u.due_date::date, u.status, u.send_at, u.link_ttl_hours, u.link_expires_at, u.custom_fields::jsonb, u.created_at, u.updated_at
   FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::text[], $9::text[], $10::text[],
               $11::timestamptz[], $12::int[], $13::timestamptz[], $14::text[], $15::timestamptz[], $16::timestamptz[])
     AS u(id, transaction_id, contact_id, external_id, amount, currency, description, due_date, status,
          send_at, link_ttl_hours, link_expires_at, custom_fields, created_at, updated_at)`,
		t.tenantID, a.ids, a.txIDs, a.contactIDs, a.externalIDs, a.amounts, a.currencies, a.descriptions, a.dueDates, a.statuses,
		a.sendAt, a.ttls, a.linkExpiresAt, a.customFields, a.createdAt, a.updatedAt)
	b.Queue(`INSERT INTO link_routes (item_id, tenant_id, direction) SELECT u.id, $1, $2 FROM unnest($3::text[]) AS u(id)`,
		t.tenantID, d, a.ids)
	if err := t.tx.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("inserting %ss: %w", d, err)
	}
	return nil
}

// SaveReplaced writes what a PUT changes (the mutable fields and
// updated_at) of existing items of direction d, and the parents'
// updated_at: two set-based statements sent as one pipelined batch. Each
// item may appear once.
func (t *Tx) SaveReplaced(ctx context.Context, d txn.Direction, list []txn.Item) error {
	if len(list) == 0 {
		return nil
	}
	a, err := arraysOfNew(list)
	if err != nil {
		return err
	}
	b := &pgx.Batch{}
	b.Queue(`UPDATE `+table(d)+` c SET external_id = u.external_id, amount = u.amount, currency = u.currency,
 description = u.description, due_date = u.due_date::date, send_at = u.send_at, link_ttl_hours = u.link_ttl_hours,
 custom_fields = u.custom_fields::jsonb, updated_at = u.updated_at
   FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::int[],
               $9::text[], $10::timestamptz[])
     AS u(id, external_id, amount, currency, description, due_date, send_at, link_ttl_hours, custom_fields, updated_at)
  WHERE c.id = u.id`,
		a.ids, a.externalIDs, a.amounts, a.currencies, a.descriptions, a.dueDates, a.sendAt, a.ttls, a.customFields, a.updatedAt)
	b.Queue(`UPDATE transactions t SET updated_at = u.updated_at
   FROM unnest($1::text[], $2::timestamptz[]) AS u(id, updated_at) WHERE t.id = u.id`, a.txIDs, a.updatedAt)
	if err := t.tx.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("updating %ss: %w", d, err)
	}
	return nil
}
