package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/contacts-svc/internal/store"
	"github.com/paylane/paylane/contacts-svc/migrations"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

const (
	tenantA = "01HZX3K5Q8V9W2Y4Z6A7B8C9DA"
	tenantB = "01HZX3K5Q8V9W2Y4Z6A7B8C9DB"
)

// newStore returns a store on a fresh, migrated database and its app pool.
func newStore(t *testing.T) (*store.Store, *pgxpool.Pool) {
	t.Helper()
	pg := testkit.PG(t)
	pool := pg.Pool(t, pg.Database(t, "contacts_store", migrations.Sets()...))
	return store.New(pool, nil), pool
}

func ptr(s string) *string { return &s }

// newContact builds a live contact with the given phone and external id.
func newContact(e164 string, externalID *string, first string, created time.Time) contact.Contact {
	return contact.Contact{
		ID: ids.NewAt(created),
		Fields: contact.Fields{
			ExternalID: externalID, FirstName: ptr(first), LastName: ptr("Lovelace"), Phone: e164,
			CustomFields: map[string]json.RawMessage{},
		},
		CreatedAt: created.UTC().Truncate(time.Microsecond), UpdatedAt: created.UTC().Truncate(time.Microsecond),
	}
}

// insert stores c for tenant, with its phone record, and returns it as stored.
func insert(t *testing.T, s *store.Store, tenant string, c contact.Contact) (contact.Contact, error) {
	t.Helper()
	ctx := context.Background()
	err := s.Write(ctx, idempotency.Tx{}, tenant, func(tx *store.Tx) error {
		var err error
		if c.PhoneID, err = tx.EnsurePhone(ctx, c.Phone); err != nil {
			return err
		}
		c.TenantID = tenant
		return tx.InsertContact(ctx, c)
	})
	return c, err
}

func mustInsert(t *testing.T, s *store.Store, tenant string, c contact.Contact) contact.Contact {
	t.Helper()
	c, err := insert(t, s, tenant, c)
	if err != nil {
		t.Fatalf("inserting contact: %v", err)
	}
	return c
}

func read(t *testing.T, s *store.Store, tenant, id string, l store.Lookup) (contact.Contact, error) {
	t.Helper()
	var c contact.Contact
	err := s.Read(context.Background(), tenant, func(tx *store.Tx) error {
		var err error
		c, err = tx.Contact(context.Background(), id, l)
		return err
	})
	return c, err
}

func TestContactRoundTrip(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	c := newContact("+14155552671", ptr("crm-1"), "Ada", time.Now())
	c.Email = ptr("ada@example.com")
	c.CustomFields = map[string]json.RawMessage{"tier": json.RawMessage(`"gold"`), "seats": json.RawMessage(`3`)}
	want := mustInsert(t, s, tenantA, c)
	got, err := read(t, s, tenantA, c.ID, store.Lookup{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, jsonRaw()); diff != "" {
		t.Errorf("stored contact (-want +got):\n%s", diff)
	}
}

// jsonRaw compares JSON values by meaning (jsonb normalises spacing).
func jsonRaw() cmp.Option {
	return cmp.Comparer(func(a, b json.RawMessage) bool {
		var x, y any
		return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && cmp.Equal(x, y)
	})
}

func TestUnscopedQueriesSeeNoRows(t *testing.T) {
	t.Parallel()
	s, pool := newStore(t)
	ctx := context.Background()
	mustInsert(t, s, tenantA, newContact("+14155552671", ptr("crm-1"), "Ada", time.Now()))
	err := s.Write(ctx, idempotency.Tx{}, tenantA, func(tx *store.Tx) error {
		if err := tx.InsertDefinition(ctx, contact.Definition{ID: ids.New(), Key: "tier", Label: "Tier",
			Type: contact.TypeString, CreatedAt: time.Now(), UpdatedAt: time.Now()}); err != nil {
			return err
		}
		return tx.RecordBatchRows(ctx, "batch-1", []contact.RowResult{{RowIndex: 0, Action: contact.RowSkipped}})
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"contacts", "phones", "contact_field_definitions", "contact_batch_rows", "idempotency_keys"} {
		var n int
		if err := pool.QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&n); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		if n != 0 {
			t.Errorf("an unscoped query sees %d rows of %s, want 0", n, table)
		}
	}
}

func TestOtherTenantSeesNothing(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	ctx := context.Background()
	c := mustInsert(t, s, tenantA, newContact("+14155552671", ptr("crm-1"), "Ada", time.Now()))
	if _, err := read(t, s, tenantB, c.ID, store.Lookup{WithTrashed: true}); !errors.Is(err, contact.ErrNotFound) {
		t.Errorf("tenant B reads A's contact: err = %v, want ErrNotFound", err)
	}
	err := s.Read(ctx, tenantB, func(tx *store.Tx) error {
		list, total, err := tx.Contacts(ctx, store.Filter{WithTrashed: true}, 25, 0)
		if err != nil {
			return err
		}
		if len(list) != 0 || total.N != 0 {
			t.Errorf("tenant B lists %d of %d contacts, want none", len(list), total.N)
		}
		if _, err := tx.LiveByExternalID(ctx, "crm-1"); !errors.Is(err, contact.ErrNotFound) {
			t.Errorf("tenant B finds A's external id: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The same number and external id are free in tenant B, with its own phone record.
	b := mustInsert(t, s, tenantB, newContact("+14155552671", ptr("crm-1"), "Bea", time.Now()))
	if b.PhoneID == c.PhoneID {
		t.Error("tenants share a phone record")
	}
}

func TestReadContact(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	ctx := context.Background()
	live := mustInsert(t, s, tenantA, newContact("+14155552671", nil, "Ada", time.Now()))
	trashed := mustInsert(t, s, tenantA, newContact("+14155552672", nil, "Bea", time.Now()))
	now := time.Now().UTC().Truncate(time.Microsecond)
	trashed.DeletedAt = &now
	if err := s.Write(ctx, idempotency.Tx{}, tenantA, func(tx *store.Tx) error { return tx.SaveContact(ctx, trashed) }); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		tenant, id  string
		withTrashed bool
		want        *contact.Contact
	}{
		{"live", tenantA, live.ID, false, &live},
		{"trashed hidden", tenantA, trashed.ID, false, nil},
		{"trashed shown", tenantA, trashed.ID, true, &trashed},
		{"other tenant", tenantB, live.ID, true, nil},
		{"unknown", tenantA, ids.New(), true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := s.ReadContact(ctx, tt.tenant, tt.id, tt.withTrashed)
			if tt.want == nil {
				if !errors.Is(err, contact.ErrNotFound) {
					t.Errorf("err = %v, want ErrNotFound", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(*tt.want, got, jsonRaw()); diff != "" {
				t.Errorf("contact (-want +got):\n%s", diff)
			}
		})
	}
}
