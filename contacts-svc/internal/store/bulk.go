package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/libs/batchrows"
	"github.com/paylane/paylane/libs/tenancy"
)

// LockBatch serialises bulk upserts of one batch id in the tenant until the
// transaction ends, so two workers resuming the same batch cannot both write
// a row: the second waits and then finds the first one's recorded rows.
func (t *Tx) LockBatch(ctx context.Context, batchID string) error {
	_, err := t.tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1 || '/contact-batch/' || $2, 0))`,
		t.tenantID, batchID)
	if err != nil {
		return fmt.Errorf("locking batch: %w", err)
	}
	return nil
}

// BoundStatements makes Postgres cancel any later statement of the
// transaction that runs longer than d (statement_timeout, waits for locks
// included); the transaction then rolls back and releases its locks.
func (t *Tx) BoundStatements(ctx context.Context, d time.Duration) error {
	if err := tenancy.SetLocal(ctx, t.tx, "statement_timeout", strconv.FormatInt(d.Milliseconds(), 10)+"ms"); err != nil {
		return fmt.Errorf("bounding statements: %w", err)
	}
	return nil
}

// batchRowsSQL reads a batch's recorded rows in the range of row indexes
// $3..$4, a range of contacts_batch_rows_pkey. The former "row_index =
// ANY($3)" was a filter, not an index condition: every call read all the
// rows the batch had recorded so far and compared each with the whole
// array (a parameter array is searched linearly), 500 × rows recorded per
// chunk, which grew to 40-75 ms for the last chunks of a 10,000-row batch
// (docs/benchmarks.md finding 8; TestBatchRowsReadTheRangeOfTheChunk).
const batchRowsSQL = `SELECT row_index, coalesce(contact_id, ''), action, errors FROM contact_batch_rows
	WHERE tenant_id = $1 AND batch_id = $2 AND row_index BETWEEN $3 AND $4`

// BatchRows returns the recorded outcomes of the given rows of a batch.
func (t *Tx) BatchRows(ctx context.Context, batchID string, indexes []int) (map[int]contact.RowResult, error) {
	return batchrows.Read(ctx, t.tx, batchRowsSQL, t.tenantID, batchID, indexes, func(rows pgx.Rows) (int, contact.RowResult, error) {
		var r contact.RowResult
		var action string
		err := rows.Scan(&r.RowIndex, &r.ContactID, &action, &r.Errors)
		r.Action = contact.RowAction(action)
		return r.RowIndex, r, err
	})
}

// RecordBatchRows stores the outcomes of rows of a batch in one statement.
func (t *Tx) RecordBatchRows(ctx context.Context, batchID string, results []contact.RowResult) error {
	n := len(results)
	idx, contactIDs, actions, errs := make([]int32, n), make([]*string, n), make([]string, n), make([]*string, n)
	for i, r := range results {
		idx[i], actions[i] = int32(r.RowIndex), string(r.Action)
		if r.ContactID != "" {
			contactIDs[i] = &r.ContactID
		}
		if len(r.Errors) > 0 {
			b, err := json.Marshal(r.Errors)
			if err != nil {
				return fmt.Errorf("encoding row errors: %w", err)
			}
			s := string(b)
			errs[i] = &s
		}
	}
	_, err := t.tx.Exec(ctx, `INSERT INTO contact_batch_rows (tenant_id, batch_id, row_index, contact_id, action, errors)
		SELECT $1, $2, u.row_index, u.contact_id, u.action, u.errors::jsonb
		  FROM unnest($3::int[], $4::text[], $5::text[], $6::text[]) AS u(row_index, contact_id, action, errors)`,
		t.tenantID, batchID, idx, contactIDs, actions, errs)
	if err != nil {
		return fmt.Errorf("recording batch rows: %w", err)
	}
	return nil
}

// liveByExternalIDsSQL looks each external id up in the index (a live
// external id names at most one contact, contacts_external_id_key).
// The plain "external_id = ANY($2)" let the planner, with statistics from
// before a batch filled the table, scan the tenant's contacts and compare
// each with the whole array: 73 ms for a 500-row chunk of a tenant with
// 15,000 contacts, growing with the tenant, against 3 ms for the probes
// (docs/benchmarks.md, benchmark 3). The LIMIT keeps the planner from
// flattening the lateral subquery back into that join. The phone record is
// a lateral probe of phones_pkey per contact found: joined plainly, the
// planner could read the tenant's phones first and run every probe once per
// phone (a new tenant's batch, 0.9-3.3 s per chunk at 1,500 contacts;
// migration 00006 and TestBulkLookupsProbeTheIdentityIndexInEveryPlan).
const liveByExternalIDsSQL = `SELECT ` + contactColumns + ` FROM unnest($2::text[]) AS x(external_id)
	CROSS JOIN LATERAL (SELECT * FROM contacts c WHERE c.tenant_id = $1 AND c.external_id = x.external_id
	    AND c.deleted_at IS NULL LIMIT 1) c
	CROSS JOIN LATERAL (SELECT p.e164 FROM phones p WHERE p.id = c.phone_id LIMIT 1) p`

// LiveByExternalIDs returns the live contacts with the given external ids,
// by external id.
func (t *Tx) LiveByExternalIDs(ctx context.Context, externalIDs []string) (map[string]contact.Contact, error) {
	rows, err := t.tx.Query(ctx, liveByExternalIDsSQL, t.tenantID, externalIDs)
	if err != nil {
		return nil, fmt.Errorf("reading contacts by external id: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (contact.Contact, error) { return scanContact(r) })
	if err != nil {
		return nil, fmt.Errorf("reading contacts by external id: %w", err)
	}
	out := make(map[string]contact.Contact, len(list))
	for _, c := range list {
		out[*c.ExternalID] = c
	}
	return out, nil
}

// livePhoneOwnersSQL probes contacts_phone_key once per phone record, as
// liveByExternalIDsSQL does the external ids (a record has at most one live
// contact). The former "phone_id = ANY($2)" got, in the generic plan pgx's
// statement cache switches to after five executions, a scan of the tenant's
// live contacts comparing each with the whole array: 53 ms for 500 records
// in a tenant of 3,000 contacts (2 ms in a custom plan), growing with the
// tenant (TestBulkLookupsProbeTheIdentityIndexInEveryPlan).
const livePhoneOwnersSQL = `SELECT c.phone_id, c.id FROM unnest($2::text[]) AS x(phone_id)
	CROSS JOIN LATERAL (SELECT c.phone_id, c.id FROM contacts c WHERE c.tenant_id = $1 AND c.phone_id = x.phone_id
	    AND c.deleted_at IS NULL LIMIT 1) c`

// LivePhoneOwners returns, for each phone record id held by a live contact,
// that contact's id.
func (t *Tx) LivePhoneOwners(ctx context.Context, phoneIDs []string) (map[string]string, error) {
	if len(phoneIDs) == 0 {
		return map[string]string{}, nil
	}
	rows, err := t.tx.Query(ctx, livePhoneOwnersSQL, t.tenantID, phoneIDs)
	if err != nil {
		return nil, fmt.Errorf("reading phone owners: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var phoneID, id string
		if err := rows.Scan(&phoneID, &id); err != nil {
			return nil, fmt.Errorf("reading phone owners: %w", err)
		}
		out[phoneID] = id
	}
	return out, rows.Err()
}

// contactArrays are contacts as the column arrays of an unnest.
type contactArrays struct {
	ids, phoneIDs, customFields                []string
	externalIDs, firstNames, lastNames, emails []*string
	createdAt, updatedAt                       []time.Time
}

// arraysOf splits contacts into column arrays.
func arraysOf(list []contact.Contact) (contactArrays, error) {
	n := len(list)
	a := contactArrays{
		ids: make([]string, n), phoneIDs: make([]string, n), customFields: make([]string, n),
		externalIDs: make([]*string, n), firstNames: make([]*string, n), lastNames: make([]*string, n),
		emails: make([]*string, n), createdAt: make([]time.Time, n), updatedAt: make([]time.Time, n),
	}
	for i, c := range list {
		cf, err := json.Marshal(c.CustomFields)
		if err != nil {
			return a, fmt.Errorf("encoding custom fields: %w", err)
		}
		a.ids[i], a.phoneIDs[i], a.customFields[i] = c.ID, c.PhoneID, string(cf)
		a.externalIDs[i], a.firstNames[i], a.lastNames[i], a.emails[i] = c.ExternalID, c.FirstName, c.LastName, c.Email
		a.createdAt[i], a.updatedAt[i] = c.CreatedAt, c.UpdatedAt
	}
	return a, nil
}

// InsertContacts stores new live contacts in one statement.
func (t *Tx) InsertContacts(ctx context.Context, list []contact.Contact) error {
	if len(list) == 0 {
		return nil
	}
	a, err := arraysOf(list)
	if err != nil {
		return err
	}
	_, err = t.tx.Exec(ctx, `INSERT INTO contacts
		(id, tenant_id, external_id, first_name, last_name, phone_id, email, custom_fields, created_at, updated_at)
		SELECT u.id, $1, u.external_id, u.first_name, u.last_name, u.phone_id, u.email, u.custom_fields::jsonb, u.created_at, u.updated_at
		  FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::timestamptz[], $10::timestamptz[])
		    AS u(id, external_id, first_name, last_name, phone_id, email, custom_fields, created_at, updated_at)`,
		t.tenantID, a.ids, a.externalIDs, a.firstNames, a.lastNames, a.phoneIDs, a.emails, a.customFields, a.createdAt, a.updatedAt)
	if err != nil {
		return fmt.Errorf("inserting contacts: %w", contactError(err))
	}
	return nil
}

// SaveContacts writes the mutable fields of existing live contacts in one
// statement; each contact may appear once.
func (t *Tx) SaveContacts(ctx context.Context, list []contact.Contact) error {
	if len(list) == 0 {
		return nil
	}
	a, err := arraysOf(list)
	if err != nil {
		return err
	}
	_, err = t.tx.Exec(ctx, `UPDATE contacts c SET external_id = u.external_id, first_name = u.first_name,
		last_name = u.last_name, phone_id = u.phone_id, email = u.email, custom_fields = u.custom_fields::jsonb,
		updated_at = u.updated_at
		  FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::timestamptz[])
		    AS u(id, external_id, first_name, last_name, phone_id, email, custom_fields, updated_at)
		 WHERE c.tenant_id = $1 AND c.id = u.id`,
		t.tenantID, a.ids, a.externalIDs, a.firstNames, a.lastNames, a.phoneIDs, a.emails, a.customFields, a.updatedAt)
	if err != nil {
		return fmt.Errorf("updating contacts: %w", contactError(err))
	}
	return nil
}

// LockExternalID serialises find-or-create calls for one external id in the
// tenant until the transaction ends: the second caller waits, then finds
// the contact the first one created instead of failing on the unique index.
func (t *Tx) LockExternalID(ctx context.Context, externalID string) error {
	_, err := t.tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1 || '/contact-external-id/' || $2, 0))`,
		t.tenantID, externalID)
	if err != nil {
		return fmt.Errorf("locking external id: %w", err)
	}
	return nil
}
