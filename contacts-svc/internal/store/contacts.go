package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/libs/pgdb"
	"github.com/paylane/paylane/libs/tenancy"
)

// contactColumns are the columns scanContact reads, in order.
const contactColumns = `c.id, c.tenant_id, c.external_id, c.first_name, c.last_name, p.e164, c.phone_id,
	c.email, c.custom_fields, c.created_at, c.updated_at, c.deleted_at`

// contactFrom joins a contact to its phone record.
const contactFrom = ` FROM contacts c JOIN phones p ON p.id = c.phone_id`

func scanContact(row pgx.Row) (contact.Contact, error) {
	var c contact.Contact
	err := row.Scan(&c.ID, &c.TenantID, &c.ExternalID, &c.FirstName, &c.LastName, &c.Phone, &c.PhoneID,
		&c.Email, &c.CustomFields, &c.CreatedAt, &c.UpdatedAt, &c.DeletedAt)
	return c, err
}

// Lookup says which contacts a read may return and whether it locks the row.
type Lookup struct {
	WithTrashed bool
	ForUpdate   bool
}

// contactByIDSQL selects one contact by id, live only unless withTrashed.
func contactByIDSQL(l Lookup) string {
	q := `SELECT ` + contactColumns + contactFrom + ` WHERE c.tenant_id = $1 AND c.id = $2`
	if !l.WithTrashed {
		q += ` AND c.deleted_at IS NULL`
	}
	if l.ForUpdate {
		q += ` FOR UPDATE OF c`
	}
	return q
}

// Contact returns the contact with id, live only unless l.WithTrashed;
// contact.ErrNotFound when there is none in the tenant.
func (t *Tx) Contact(ctx context.Context, id string, l Lookup) (contact.Contact, error) {
	return oneContact(t.tx.QueryRow(ctx, contactByIDSQL(l), t.tenantID, id))
}

func oneContact(row pgx.Row) (contact.Contact, error) {
	c, err := scanContact(row)
	if errors.Is(err, pgx.ErrNoRows) {
		return contact.Contact{}, contact.ErrNotFound
	}
	if err != nil {
		return contact.Contact{}, fmt.Errorf("reading contact: %w", err)
	}
	return c, nil
}

// ReadContact is Read plus Tx.Contact on the hot path of a single read:
// the tenant scope and the SELECT travel as one pipelined batch, one
// implicit transaction (tenancy.Batch), one round trip instead of three.
func (s *Store) ReadContact(ctx context.Context, tenantID, id string, withTrashed bool) (contact.Contact, error) {
	var (
		c      contact.Contact
		result error
	)
	b := &pgx.Batch{}
	b.Queue(contactByIDSQL(Lookup{WithTrashed: withTrashed}), tenantID, id).QueryRow(func(row pgx.Row) error {
		c, result = oneContact(row)
		return nil
	})
	if err := tenancy.Batch(ctx, s.pool, tenantID, b); err != nil {
		return contact.Contact{}, fmt.Errorf("reading contact: %w", err)
	}
	return c, result
}

// LiveByExternalID returns the live contact with the external id, or
// contact.ErrNotFound.
func (t *Tx) LiveByExternalID(ctx context.Context, externalID string) (contact.Contact, error) {
	q := `SELECT ` + contactColumns + contactFrom +
		` WHERE c.tenant_id = $1 AND c.external_id = $2 AND c.deleted_at IS NULL`
	c, err := scanContact(t.tx.QueryRow(ctx, q, t.tenantID, externalID))
	if errors.Is(err, pgx.ErrNoRows) {
		return contact.Contact{}, contact.ErrNotFound
	}
	if err != nil {
		return contact.Contact{}, fmt.Errorf("reading contact by external id: %w", err)
	}
	return c, nil
}

// Filter narrows a list of contacts. Empty strings do not filter.
type Filter struct {
	// Phone is an E.164 number.
	Phone       string
	ExternalID  string
	WithTrashed bool
}

// Contacts returns a page of contacts, newest first, and the total
// (listtotal: exact up to the store's ListCap, estimated above it).
//
// Both statements read contacts alone unless the filter is a phone number
// (every contact has its phone record, so the join changes no count): the
// count is an index-only scan of at most cap+1 entries, and the page's ids
// come from contacts_list_idx (migration 00007) by an index-only scan past
// the offset, before only the page's rows are read and joined to their
// phones. A deep page of a large tenant then skips index entries, not
// joined rows (docs/benchmarks.md, "Data growth"); a page in the older
// half of an exactly counted list skips the entries older than it, read
// backward (listtotal.Window).
func (t *Tx) Contacts(ctx context.Context, f Filter, limit, offset int) ([]contact.Contact, listtotal.Total, error) {
	count, fromWhere, args := contactsListSQL(f)
	args[0] = t.tenantID
	total, err := t.store.lists.Count(ctx, t.tx, t.store.ListCap, t.tenantID, count, args...)
	if err != nil {
		return nil, listtotal.Total{}, fmt.Errorf("counting contacts: %w", err)
	}
	// An estimate may be below the real count: only an exact total says
	// that the page is past the end.
	if total.N == 0 || (!total.Estimated && offset >= total.N) {
		return nil, total, nil
	}
	w := total.Window(limit, offset)
	rows, err := t.tx.Query(ctx, contactsPageSQL(fromWhere, len(args)+1, w.OrderBy(contactsOrder)), w.Args(args)...)
	if err != nil {
		return nil, listtotal.Total{}, fmt.Errorf("listing contacts: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (contact.Contact, error) { return scanContact(r) })
	if err != nil {
		return nil, listtotal.Total{}, fmt.Errorf("listing contacts: %w", err)
	}
	return list, total, nil
}

// contactsListSQL returns the count statement (the rows of the list, one
// per contact, as listtotal counts them) and the FROM and WHERE of the
// page statement (contactsPageSQL) of a list filtered by f, and their
// arguments but the tenant ($1, left nil) and the page's LIMIT and OFFSET
// (the two after the others).
func contactsListSQL(f Filter) (count, fromWhere string, args []any) {
	var where listtotal.Where
	where.And("c.tenant_id = $%d", nil)
	from := " FROM contacts c"
	if f.Phone != "" {
		from = contactFrom
		where.And("p.e164 = $%d", f.Phone)
	}
	if f.ExternalID != "" {
		where.And("c.external_id = $%d", f.ExternalID)
	}
	if !f.WithTrashed {
		where.And("c.deleted_at IS NULL")
	}
	return "SELECT 1" + from + where.SQL(), from + where.SQL(), where.Args()
}

// contactsOrder is the ORDER BY of a list of contacts: newest first.
const contactsOrder = "c.created_at DESC, c.id DESC"

// contactsPageSQL selects the page of the contacts that fromWhere (FROM
// contacts c ... WHERE ..., tenant $1) selects, newest first: LIMIT is
// parameter n and OFFSET parameter n+1, counted in the order orderBy (a
// listtotal.Window's OrderBy of contactsOrder: from the newest, or from
// the oldest by a backward scan of the same index). Each row of the page is read by
// its id in a lateral subquery, which the planner cannot merge into a join
// (LIMIT 1): a join of the page with the tenant's contacts was a hash join
// over every contact of the tenant when the planner took the tenant for a
// small one (no statistics on tenant_id, migration 00006).
func contactsPageSQL(fromWhere string, n int, orderBy string) string {
	page := "SELECT c.id, c.created_at" + fromWhere + " ORDER BY " + orderBy + " LIMIT $" +
		strconv.Itoa(n) + " OFFSET $" + strconv.Itoa(n+1)
	return "SELECT c.* FROM (" + page + ") page CROSS JOIN LATERAL (SELECT " + contactColumns + contactFrom +
		" WHERE c.tenant_id = $1 AND c.id = page.id LIMIT 1) c ORDER BY page.created_at DESC, page.id DESC"
}

// InsertContact stores a new contact whose PhoneID is set (EnsurePhone).
// custom_fields and phones.e164 are domains (migration 00005): their
// parameters here and below are cast to the base type, which pgx encodes
// (a domain's own type is unknown to it).
func (t *Tx) InsertContact(ctx context.Context, c contact.Contact) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO contacts
		(id, tenant_id, external_id, first_name, last_name, phone_id, email, custom_fields, created_at, updated_at, deleted_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11)`,
		c.ID, t.tenantID, c.ExternalID, c.FirstName, c.LastName, c.PhoneID, c.Email, c.CustomFields,
		c.CreatedAt, c.UpdatedAt, c.DeletedAt)
	if err != nil {
		return fmt.Errorf("inserting contact: %w", contactError(err))
	}
	return nil
}

// SaveContact writes every mutable field, the phone record and the
// timestamps of an existing contact.
func (t *Tx) SaveContact(ctx context.Context, c contact.Contact) error {
	tag, err := t.tx.Exec(ctx, `UPDATE contacts SET external_id = $3, first_name = $4, last_name = $5,
		phone_id = $6, email = $7, custom_fields = $8::jsonb, updated_at = $9, deleted_at = $10
		WHERE tenant_id = $1 AND id = $2`,
		t.tenantID, c.ID, c.ExternalID, c.FirstName, c.LastName, c.PhoneID, c.Email, c.CustomFields,
		c.UpdatedAt, c.DeletedAt)
	if err != nil {
		return fmt.Errorf("updating contact: %w", contactError(err))
	}
	if tag.RowsAffected() == 0 {
		return contact.ErrNotFound
	}
	return nil
}

// Identity is what a write learns about a contact's phone number and
// external id: the id of the number's phone record, and the live contacts
// that hold the record and the external id ("" for none).
type Identity struct {
	PhoneID, PhoneOwner, ExternalIDOwner string
}

// identitySQL ensures the phone record of $3 (id $1 when new) and selects
// it with the live holders of it and of the external id $4 (NULL: none).
// ensurePhoneSQL's DO UPDATE makes RETURNING answer for an existing record.
const identitySQL = `WITH phone AS (` + ensurePhoneSQL + `), owners AS (
	SELECT phone.id AS phone_id,
		(SELECT c.id FROM contacts c WHERE c.tenant_id = $2 AND c.phone_id = phone.id AND c.deleted_at IS NULL) AS phone_owner,
		(SELECT c.id FROM contacts c WHERE c.tenant_id = $2 AND c.external_id = $4 AND c.deleted_at IS NULL) AS external_id_owner
	FROM phone)`

// identityResult is the select of identitySQL's owners.
const identityResult = ` SELECT phone_id, coalesce(phone_owner, ''), coalesce(external_id_owner, '') FROM owners`

// ClaimIdentity ensures the phone record of e164 and reports which live
// contacts hold it and externalID (nil: none), in one statement. The unique
// indexes decide in the end; this gives the friendly answer first.
func (t *Tx) ClaimIdentity(ctx context.Context, e164 string, externalID *string) (Identity, error) {
	var id Identity
	err := t.tx.QueryRow(ctx, identitySQL+identityResult, ids.New(), t.tenantID, e164, externalID).
		Scan(&id.PhoneID, &id.PhoneOwner, &id.ExternalIDOwner)
	if err != nil {
		return Identity{}, fmt.Errorf("claiming phone and external id: %w", err)
	}
	return id, nil
}

// insertFreeContactSQL continues identitySQL with the insert of the
// contact when no live contact holds its phone record or external id.
const insertFreeContactSQL = identitySQL + `, inserted AS (
	INSERT INTO contacts (id, tenant_id, external_id, first_name, last_name, phone_id, email, custom_fields, created_at, updated_at)
	SELECT $5, $2, $4, $6, $7, owners.phone_id, $8, $9::jsonb, $10, $11 FROM owners
	 WHERE owners.phone_owner IS NULL AND owners.external_id_owner IS NULL`

// insertNewContactSQL is identitySQL that also inserts the contact when no
// live contact holds its phone record or external id.
const insertNewContactSQL = insertFreeContactSQL + `)` + identityResult

// insertAssumedContactSQL is insertNewContactSQL for a one-shot write: the
// contact is inserted only with the phone record id $1 (the record has that
// id already, or is created with it), and the statement fails (division by
// zero) when it inserted nothing, so the transaction never commits an
// assumption that did not hold.
const insertAssumedContactSQL = insertFreeContactSQL + ` AND owners.phone_id = $1
	RETURNING id)
	SELECT 1 / (SELECT count(*) FROM inserted)`

// insertPhoneSQL and insertContactSQL are the one-shot write of a contact
// whose number this process has not seen: the number is assumed new, so the
// record and the contact are plain inserts, and the unique indexes fail the
// transaction when the number has a record already or the external id a
// live holder.
const (
	insertPhoneSQL   = `INSERT INTO phones (id, tenant_id, e164) VALUES ($1, $2, $3::text)`
	insertContactSQL = `INSERT INTO contacts (id, tenant_id, external_id, first_name, last_name, phone_id, email,
		custom_fields, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10)`
)

// InsertNewContact is ClaimIdentity and, when neither the phone record nor
// the external id has a live holder, the insert of the new live contact c,
// in one statement; c.PhoneID is ignored (the record's id is returned).
// A concurrent insert that wins the race is contact.ErrPhoneTaken or
// contact.ErrExternalIDTaken.
//
// In a one-shot write (idempotency.Tx.OneShot) it does not wait for the
// statements: it assumes the contact is inserted, with the record id this
// process knows for the number or a new one, returns that identity, and
// queues statements that fail the transaction when the assumption does not
// hold (the request then runs again and takes the path above). A number it
// has not seen costs two plain inserts; one it has seen, the statement
// above, which also recreates a remembered record that is missing.
func (t *Tx) InsertNewContact(ctx context.Context, c contact.Contact) (Identity, error) {
	phoneID, known := t.store.phones.get(t.tenantID, c.Phone)
	if !known {
		phoneID = ids.New()
	}
	args := []any{phoneID, t.tenantID, c.Phone, c.ExternalID,
		c.ID, c.FirstName, c.LastName, c.Email, c.CustomFields, c.CreatedAt, c.UpdatedAt}
	if t.oneShot && tenancy.IsPipelined(t.tx) {
		remember := func(pgconn.CommandTag) error {
			t.store.phones.put(t.tenantID, c.Phone, phoneID)
			return nil
		}
		if known {
			qq := &pgx.QueuedQuery{SQL: insertAssumedContactSQL, Arguments: args}
			qq.Exec(remember)
			tenancy.Queue(t.tx, qq)
			return Identity{PhoneID: phoneID}, nil
		}
		tenancy.Queue(t.tx, &pgx.QueuedQuery{SQL: insertPhoneSQL, Arguments: args[:3]})
		qq := &pgx.QueuedQuery{SQL: insertContactSQL, Arguments: []any{c.ID, t.tenantID, c.ExternalID,
			c.FirstName, c.LastName, phoneID, c.Email, c.CustomFields, c.CreatedAt, c.UpdatedAt}}
		qq.Exec(remember)
		tenancy.Queue(t.tx, qq)
		return Identity{PhoneID: phoneID}, nil
	}
	var id Identity
	err := t.tx.QueryRow(ctx, insertNewContactSQL, args...).Scan(&id.PhoneID, &id.PhoneOwner, &id.ExternalIDOwner)
	if err != nil {
		return Identity{}, fmt.Errorf("inserting contact: %w", contactError(err))
	}
	t.store.phones.put(t.tenantID, c.Phone, id.PhoneID)
	return id, nil
}

// contactError turns a violated unique index into the domain's error.
func contactError(err error) error {
	switch {
	case pgdb.IsUniqueViolation(err, "contacts_phone_key"):
		return contact.ErrPhoneTaken
	case pgdb.IsUniqueViolation(err, "contacts_external_id_key"):
		return contact.ErrExternalIDTaken
	}
	return err
}
