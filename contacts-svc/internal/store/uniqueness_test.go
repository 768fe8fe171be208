package store_test

import (
	"context"
	"errors"
	"maps"
	"testing"
	"time"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/contacts-svc/internal/store"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/ids"
)

func TestLiveUniquenessBecomesDomainErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		second  contact.Contact
		wantErr error
	}{
		{"same phone", newContact("+14155552671", ptr("crm-2"), "Bea", time.Now()), contact.ErrPhoneTaken},
		{"same external id", newContact("+14155552672", ptr("crm-1"), "Bea", time.Now()), contact.ErrExternalIDTaken},
		{"other phone, no external id", newContact("+14155552673", nil, "Bea", time.Now()), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, _ := newStore(t)
			first := mustInsert(t, s, tenantA, newContact("+14155552671", ptr("crm-1"), "Ada", time.Now()))
			_, err := insert(t, s, tenantA, tt.second)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("second insert: err = %v, want %v", err, tt.wantErr)
			}
			if tt.wantErr == nil {
				return
			}
			// Once the first is soft-deleted, its phone and external id are free.
			now := time.Now().UTC()
			first.DeletedAt = &now
			if err := s.Write(context.Background(), idempotency.Tx{}, tenantA, func(tx *store.Tx) error { return tx.SaveContact(context.Background(), first) }); err != nil {
				t.Fatal(err)
			}
			second, err := insert(t, s, tenantA, tt.second)
			if err != nil {
				t.Fatalf("insert after soft delete: %v", err)
			}
			// Trashed contacts of one identity coexist; a live one stays alone.
			later := now.Add(time.Millisecond)
			second.DeletedAt = &later
			if err := s.Write(context.Background(), idempotency.Tx{}, tenantA, func(tx *store.Tx) error { return tx.SaveContact(context.Background(), second) }); err != nil {
				t.Fatalf("trashing the second: %v", err)
			}
			third := tt.second
			third.ID = ids.New()
			if _, err := insert(t, s, tenantA, third); err != nil {
				t.Fatalf("third insert beside two trashed: %v", err)
			}
			first.DeletedAt = nil
			err = s.Write(context.Background(), idempotency.Tx{}, tenantA, func(tx *store.Tx) error { return tx.SaveContact(context.Background(), first) })
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("restoring the first beside a live third: err = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

func TestPhoneRecordsAreCanonical(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	ctx := context.Background()
	err := s.Write(ctx, idempotency.Tx{}, tenantA, func(tx *store.Tx) error {
		first, err := tx.EnsurePhone(ctx, "+14155552671")
		if err != nil {
			return err
		}
		again, err := tx.EnsurePhone(ctx, "+14155552671")
		if err != nil {
			return err
		}
		many, created, err := tx.EnsurePhones(ctx, []string{"+14155552671", "+14155552672", "+14155552672"})
		if err != nil {
			return err
		}
		if again != first || many["+14155552671"] != first {
			t.Errorf("one number has several records: %s, %s, %s", first, again, many["+14155552671"])
		}
		if len(many) != 2 || !ids.Valid(many["+14155552672"]) || many["+14155552672"] == first {
			t.Errorf("EnsurePhones = %v", many)
		}
		if want := map[string]bool{many["+14155552672"]: true}; !maps.Equal(created, want) {
			t.Errorf("EnsurePhones created %v, want only the new number's record %v", created, want)
		}
		owners, err := tx.LivePhoneOwners(ctx, []string{first})
		if err != nil || len(owners) != 0 {
			t.Errorf("owners of an unused record = %v, %v", owners, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestClaimIdentity(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	ctx := context.Background()
	c := mustInsert(t, s, tenantA, newContact("+14155552671", ptr("crm-1"), "Ada", time.Now()))
	err := s.Write(ctx, idempotency.Tx{}, tenantA, func(tx *store.Tx) error {
		got, err := tx.ClaimIdentity(ctx, "+14155552671", ptr("crm-1"))
		if err != nil {
			return err
		}
		if want := (store.Identity{PhoneID: c.PhoneID, PhoneOwner: c.ID, ExternalIDOwner: c.ID}); got != want {
			t.Errorf("ClaimIdentity of a held phone and id = %+v, want %+v", got, want)
		}
		got, err = tx.ClaimIdentity(ctx, "+14155552672", nil)
		if err != nil {
			return err
		}
		if got.PhoneID == "" || got.PhoneID == c.PhoneID || got.PhoneOwner != "" || got.ExternalIDOwner != "" {
			t.Errorf("ClaimIdentity of a new phone, no id = %+v", got)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestInsertNewContactOnlyWhenIdentityIsFree(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	ctx := context.Background()
	first := mustInsert(t, s, tenantA, newContact("+14155552671", ptr("crm-1"), "Ada", time.Now()))
	tests := []struct {
		name string
		c    contact.Contact
		want func(store.Identity) store.Identity
	}{
		{"held phone", newContact("+14155552671", ptr("crm-2"), "Bea", time.Now()),
			func(id store.Identity) store.Identity {
				return store.Identity{PhoneID: first.PhoneID, PhoneOwner: first.ID}
			}},
		{"held external id", newContact("+14155552672", ptr("crm-1"), "Bea", time.Now()),
			func(id store.Identity) store.Identity {
				return store.Identity{PhoneID: id.PhoneID, ExternalIDOwner: first.ID}
			}},
		{"free", newContact("+14155552673", nil, "Cy", time.Now()),
			func(id store.Identity) store.Identity { return store.Identity{PhoneID: id.PhoneID} }},
	}
	for _, tt := range tests {
		var got store.Identity
		err := s.Write(ctx, idempotency.Tx{}, tenantA, func(tx *store.Tx) error {
			var err error
			got, err = tx.InsertNewContact(ctx, tt.c)
			return err
		})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if want := tt.want(got); got != want || got.PhoneID == "" {
			t.Errorf("%s: identity = %+v, want %+v", tt.name, got, want)
		}
		_, err = read(t, s, tenantA, tt.c.ID, store.Lookup{})
		if inserted := err == nil; inserted != (tt.name == "free") {
			t.Errorf("%s: inserted = %v (%v)", tt.name, inserted, err)
		}
	}
}

func TestDefinitionKeysAreUniquePerTenant(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	ctx := context.Background()
	def := func() contact.Definition {
		now := time.Now().UTC().Truncate(time.Microsecond)
		return contact.Definition{ID: ids.New(), Key: "tier", Label: "Tier", Type: contact.TypeEnum,
			Options: []string{"gold", "silver"}, CreatedAt: now, UpdatedAt: now}
	}
	add := func(tenant string) error {
		return s.Write(ctx, idempotency.Tx{}, tenant, func(tx *store.Tx) error { return tx.InsertDefinition(ctx, def()) })
	}
	if err := add(tenantA); err != nil {
		t.Fatal(err)
	}
	if err := add(tenantA); !errors.Is(err, contact.ErrKeyTaken) {
		t.Errorf("second tier in A: err = %v, want ErrKeyTaken", err)
	}
	if err := add(tenantB); err != nil {
		t.Errorf("tier in B: %v", err)
	}
	err := s.Read(ctx, tenantA, func(tx *store.Tx) error {
		list, total, err := tx.Definitions(ctx, 25, 0)
		if err != nil {
			return err
		}
		if total != 1 || len(list) != 1 || len(list[0].Options) != 2 {
			t.Errorf("A's definitions = %+v (total %d)", list, total)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
