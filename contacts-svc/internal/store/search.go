package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
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

// searchSQL finds names similar to $2 as a whole (%) or as a part of the
// full name (<%: "Ada" finds "Ada Lovelace"); the score is pg_trgm's
// similarity of the whole names.
const searchSQL = `SELECT ` + contactColumns + `,
	CASE WHEN $2 = '' THEN 1 ELSE similarity(c.full_name, $2) END AS score` + contactFrom + `
	WHERE c.tenant_id = $1 AND c.deleted_at IS NULL
	  AND ($2 = '' OR c.full_name % $2 OR $2 <% c.full_name)
	  AND ($3 = '' OR p.e164 = $3)
	  AND ($4 = '' OR lower(c.email) = lower($4))
	ORDER BY score DESC, c.created_at DESC, c.id DESC
	LIMIT $5`

// SearchContacts returns the best candidates first.
func (t *Tx) SearchContacts(ctx context.Context, s Search) ([]contact.Candidate, error) {
	rows, err := t.tx.Query(ctx, searchSQL, t.tenantID, s.Name, s.Phone, s.Email, s.Limit)
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
