package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/libs/listtotal"
)

// Search selects live contacts by name similarity and exact phone and email.
type Search struct {
	// Name is matched by trigram similarity against "first last"; empty
	// matches every name.
	Name string
	// Phone (E.164) and Email narrow to exact matches when not empty.
	Phone string
	Email string
	Limit int
}

// searchSQL is the statement of a search narrowed by phone or email,
// which their exact indexes keep to a few contacts (or of no name at all),
// and its arguments: it finds names similar to the search's as a whole (%)
// or as a part of the full name (<%: "Ada" finds "Ada Lovelace"); the
// score is pg_trgm's similarity of the whole names. A part of the search
// that is not set is not in the text (listtotal.Where), so the phone or
// email condition probes its index in a generic plan of pgx's statement
// cache too; "p.e164 = $3 unless $3 is empty" could not.
func searchSQL(tenant string, s Search) (string, []any) {
	var where listtotal.Where
	where.And("c.tenant_id = $%d", tenant)
	where.And("c.deleted_at IS NULL")
	score := "1::real"
	if s.Name != "" {
		where.And("(c.full_name %% $%[1]d OR $%[1]d <%% c.full_name)", s.Name)
		score = fmt.Sprintf("similarity(c.full_name, $%d)", where.Next()-1)
	}
	if s.Phone != "" {
		where.And("p.e164 = $%d", s.Phone)
	}
	if s.Email != "" {
		where.And("lower(c.email) = lower($%d)", s.Email)
	}
	return `SELECT ` + contactColumns + `, ` + score + ` AS score` + contactFrom + where.SQL() +
		fmt.Sprintf(` ORDER BY score DESC, c.created_at DESC, c.id DESC LIMIT $%d`, where.Next()), append(where.Args(), s.Limit)
}

// The candidates of a search by name alone come from the functions of
// migration 00008, which read the trigram index for the session's tenant
// (app.tenant_id); the best $3 of them are then read under row-level
// security, by id. Below the policy the index could not be used (pg_trgm's
// operators are not leakproof): every live contact of the tenant was
// compared, 17-28 s for a million (docs/benchmarks.md, "Data growth").
const (
	nameSearchSelect = `SELECT ` + contactColumns + `, m.score
	FROM (SELECT m.id, m.score FROM `
	nameSearchRest = `($2) m ORDER BY m.score DESC, m.created_at DESC, m.id DESC LIMIT $3) m
	CROSS JOIN LATERAL (SELECT * FROM contacts c WHERE c.tenant_id = $1 AND c.id = m.id AND c.deleted_at IS NULL LIMIT 1) c
	CROSS JOIN LATERAL (SELECT p.e164 FROM phones p WHERE p.id = c.phone_id LIMIT 1) p
	ORDER BY m.score DESC, c.created_at DESC, c.id DESC`
)

// The tiers of a search by name alone, in the order it sends them: the
// candidates scoring 1, at least 0.6, all. When a tier finds Limit
// candidates they are the best of all (every other one scores less); the
// narrower tiers read far fewer index entries (a first name alone is
// shared by thousands of a large tenant's contacts).
const (
	identicalNameSearchSQL = nameSearchSelect + `contact_name_candidates_identical` + nameSearchRest
	strongNameSearchSQL    = nameSearchSelect + `contact_name_candidates_strong` + nameSearchRest
	allNameSearchSQL       = nameSearchSelect + `contact_name_candidates` + nameSearchRest
)

// SearchContacts returns the best candidates first. A search by name alone
// asks the tiers in turn until one finds Limit candidates.
func (t *Tx) SearchContacts(ctx context.Context, s Search) ([]contact.Candidate, error) {
	if s.Name == "" || s.Phone != "" || s.Email != "" {
		sql, args := searchSQL(t.tenantID, s)
		return t.searchContacts(ctx, sql, args...)
	}
	var (
		list []contact.Candidate
		err  error
	)
	for _, sql := range [...]string{identicalNameSearchSQL, strongNameSearchSQL, allNameSearchSQL} {
		list, err = t.searchContacts(ctx, sql, t.tenantID, s.Name, s.Limit)
		if err != nil || len(list) >= s.Limit {
			break
		}
	}
	return list, err
}

func (t *Tx) searchContacts(ctx context.Context, sql string, args ...any) ([]contact.Candidate, error) {
	rows, err := t.tx.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("searching contacts: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (contact.Candidate, error) {
		var c contact.Candidate
		err := r.Scan(&c.Contact.ID, &c.Contact.TenantID, &c.Contact.ExternalID, &c.Contact.FirstName,
			&c.Contact.LastName, &c.Contact.Phone, &c.Contact.PhoneID, &c.Contact.Email, &c.Contact.CustomFields,
			&c.Contact.CreatedAt, &c.Contact.UpdatedAt, &c.Contact.DeletedAt, &c.Score)
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("searching contacts: %w", err)
	}
	return list, nil
}
