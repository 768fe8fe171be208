package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/libs/tenancy"
	"github.com/paylane/paylane/optin-svc/internal/optin"
)

// consentsOfSQL selects the consents of a contact ($1) or of its number
// ($2, "" when unknown), newest first.
const consentsOfSQL = `SELECT ` + consentColumns + ` FROM consents
	WHERE contact_id = $1 OR ($2 <> '' AND phone = $2) ORDER BY consented_at DESC, id DESC`

// Standing is what a contact's opt-in status is made of: whether its
// number is suppressed on sms and the consents of the contact or of its
// number, newest first.
type Standing struct {
	Suppressed bool
	Consents   []optin.Consent
}

// ContactStanding reads the standing of a contact and its number (E.164,
// "" when unknown: then no suppression can be seen) for tenantID. It is
// the hot path of every contacts-svc single read, so it is one pipelined
// round trip (tenancy.Batch: the scope and both queries sent together, one
// implicit transaction) rather than a transaction of one round trip per
// statement; the two queries do not depend on each other.
func (s *Store) ContactStanding(ctx context.Context, tenantID, contactID, phone string) (Standing, error) {
	var out Standing
	b := &pgx.Batch{}
	if phone != "" {
		b.Queue(isSuppressedSQL, phone, optin.ChannelSMS).QueryRow(func(row pgx.Row) error {
			return row.Scan(&out.Suppressed)
		})
	}
	b.Queue(consentsOfSQL, contactID, phone).Query(func(rows pgx.Rows) error {
		var err error
		out.Consents, err = collectConsents(rows, "reading consents")
		return err
	})
	if err := tenancy.Batch(ctx, s.pool, tenantID, b); err != nil {
		return Standing{}, fmt.Errorf("reading the standing of a contact: %w", err)
	}
	return out, nil
}
