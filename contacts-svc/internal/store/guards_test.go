package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/contacts-svc/internal/store"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/tenancy"
)

// TestDatabaseRefusesWhatTheRulesRefuse: the database refuses, on every
// write path, names, external ids and emails that contact.Rules refuses,
// should a caller skip the rules.
func TestDatabaseRefusesWhatTheRulesRefuse(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 101)
	tests := []struct {
		name   string
		mutate func(*contact.Contact)
	}{
		{"empty first name", func(c *contact.Contact) { c.FirstName = ptr("") }},
		{"first name over 100", func(c *contact.Contact) { c.FirstName = ptr(long) }},
		{"last name over 100", func(c *contact.Contact) { c.LastName = ptr(long) }},
		{"empty external id", func(c *contact.Contact) { c.ExternalID = ptr("") }},
		{"external id over 191", func(c *contact.Contact) { c.ExternalID = ptr(strings.Repeat("e", 192)) }},
		{"email under 3", func(c *contact.Contact) { c.Email = ptr("a@") }},
		{"email over 254", func(c *contact.Contact) { c.Email = ptr(strings.Repeat("e", 250) + "@x.io") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, _ := newStore(t)
			ctx := context.Background()
			bad := newContact("+14155552671", ptr("crm-1"), "Ada", time.Now())
			tt.mutate(&bad)
			if _, err := insert(t, s, tenantA, bad); !isCheckViolation(err) {
				t.Errorf("InsertContact: err = %v, want a check violation", err)
			}
			err := s.Write(ctx, idempotency.Tx{}, tenantA, func(tx *store.Tx) error {
				phones, _, err := tx.EnsurePhones(ctx, []string{bad.Phone})
				if err != nil {
					return err
				}
				bad.PhoneID = phones[bad.Phone]
				return tx.InsertContacts(ctx, []contact.Contact{bad})
			})
			if !isCheckViolation(err) {
				t.Errorf("InsertContacts: err = %v, want a check violation", err)
			}
			// An existing contact cannot be changed into one either.
			good := mustInsert(t, s, tenantA, newContact("+14155552672", ptr("crm-2"), "Bea", time.Now()))
			changed := good
			tt.mutate(&changed)
			if err := s.Write(ctx, idempotency.Tx{}, tenantA, func(tx *store.Tx) error { return tx.SaveContact(ctx, changed) }); !isCheckViolation(err) {
				t.Errorf("SaveContact: err = %v, want a check violation", err)
			}
			if err := s.Write(ctx, idempotency.Tx{}, tenantA, func(tx *store.Tx) error { return tx.SaveContacts(ctx, []contact.Contact{changed}) }); !isCheckViolation(err) {
				t.Errorf("SaveContacts: err = %v, want a check violation", err)
			}
		})
	}
}

// TestDatabaseRefusesAMalformedNumberOrNonObjectFields: the domains that
// replaced the table CHECKs of the phone record's number and the custom
// fields (migration 00005) refuse what those CHECKs refused.
func TestDatabaseRefusesAMalformedNumberOrNonObjectFields(t *testing.T) {
	t.Parallel()
	s, pool := newStore(t)
	ctx := context.Background()
	for _, e164 := range []string{"4155552671", "+0415555267", "+1", "+1415555267123456"} {
		err := s.Write(ctx, idempotency.Tx{}, tenantA, func(tx *store.Tx) error { _, err := tx.EnsurePhone(ctx, e164); return err })
		if !isCheckViolation(err) {
			t.Errorf("EnsurePhone(%q): err = %v, want a check violation", e164, err)
		}
	}
	if err := s.Write(ctx, idempotency.Tx{}, tenantA, func(tx *store.Tx) error { _, err := tx.EnsurePhone(ctx, "+14155552671"); return err }); err != nil {
		t.Fatalf("a valid number: %v", err)
	}
	c := mustInsert(t, s, tenantA, newContact("+14155552673", nil, "Cy", time.Now()))
	err := tenancy.Do(ctx, pool, tenantA, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE contacts SET custom_fields = $1::jsonb WHERE id = $2`, json.RawMessage(`[1]`), c.ID)
		if err == nil && tag.RowsAffected() != 1 {
			t.Errorf("the update reached %d contacts, want 1", tag.RowsAffected())
		}
		return err
	})
	if !isCheckViolation(err) {
		t.Errorf("custom fields as an array: err = %v, want a check violation", err)
	}
}

func isCheckViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23514"
}
