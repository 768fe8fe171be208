package events_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/ids"
)

func TestTopicFor(t *testing.T) {
	t.Parallel()
	tests := []struct{ typ, want string }{
		{"token.revoked", events.TopicIdentity},
		{"tenant.updated", events.TopicIdentity},
		{"contact.created", events.TopicContacts},
		{"contact.restored", events.TopicContacts},
		{"receivable.paid", events.TopicTransactions},
		{"payable.destination_selected", events.TopicTransactions},
		{"transaction.campaign_assigned", events.TopicTransactions},
		{"contact.batch.completed", events.TopicBatches},
		{"receivable.batch.completed", events.TopicBatches},
		{"payable.batch.completed", events.TopicBatches},
		{"message.delivered", events.TopicMessages},
		{"opt_in.confirmed", events.TopicOptins},
		{"suppression.deleted", events.TopicOptins},
		{"consent.requested", events.TopicOptins},
		{"unknown.thing", ""},
		{"contact", ""},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			t.Parallel()
			if got := events.TopicFor(tt.typ); got != tt.want {
				t.Errorf("TopicFor(%q) = %q, want %q", tt.typ, got, tt.want)
			}
		})
	}
}

func TestAllTopicsCoversEveryDomain(t *testing.T) {
	t.Parallel()
	want := []string{"paylane.identity.v1", "paylane.contacts.v1", "paylane.transactions.v1",
		"paylane.batches.v1", "paylane.messages.v1", "paylane.optins.v1"}
	if diff := cmp.Diff(want, events.AllTopics()); diff != "" {
		t.Errorf("AllTopics (-want +got):\n%s", diff)
	}
}

func TestNewEnvelopeAndJSONShape(t *testing.T) {
	t.Parallel()
	before := time.Now().Add(-time.Second)
	env, err := events.New(events.TypeTokenRevoked, "TENANT1", "req-1", events.TokenRevoked{TokenID: 12})
	if err != nil {
		t.Fatal(err)
	}
	if !ids.Valid(env.ID) || env.OccurredAt.Before(before) || env.OccurredAt.Location() != time.UTC {
		t.Fatalf("envelope id/time: %+v", env)
	}
	raw, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"id": env.ID, "type": "token.revoked", "tenant_id": "TENANT1",
		"occurred_at": env.OccurredAt.Format(time.RFC3339Nano), "request_id": "req-1",
		"data": map[string]any{"token_id": float64(12)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("envelope JSON (-want +got):\n%s", diff)
	}
	var data events.TokenRevoked
	if err := env.Decode(&data); err != nil || data.TokenID != 12 {
		t.Fatalf("Decode = %+v, %v", data, err)
	}
}

func TestNewRejectsUnencodableData(t *testing.T) {
	t.Parallel()
	if _, err := events.New("contact.created", "T", "", func() {}); err == nil {
		t.Fatal("New accepted a func as data")
	}
}

func TestMatches(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, typ string
		want         bool
	}{
		{"*", "contact.created", true},
		{"contact.*", "contact.created", true},
		{"contact.*", "contact.batch.completed", true},
		{"contact.*", "receivable.created", false},
		{"contact.created", "contact.created", true},
		{"contact.created", "contact.updated", false},
		{"contact.batch.*", "contact.batch.completed", false},
		{".*", "contact.created", false},
	}
	for _, tt := range tests {
		if got := events.Matches(tt.pattern, tt.typ); got != tt.want {
			t.Errorf("Matches(%q, %q) = %v, want %v", tt.pattern, tt.typ, got, tt.want)
		}
	}
}

func TestCatalogTypesHaveTopics(t *testing.T) {
	t.Parallel()
	for _, typ := range events.Catalog() {
		if events.TopicFor(typ) == "" {
			t.Errorf("%s has no topic", typ)
		}
		if !events.IsPublic(typ) {
			t.Errorf("%s not public", typ)
		}
	}
	for _, typ := range []string{events.TypeTokenRevoked, events.TypeTenantUpdated, events.TypeNotificationRequested,
		events.TypeConsentRequested, events.TypeMessageQueued} {
		if events.IsPublic(typ) {
			t.Errorf("%s must not be public", typ)
		}
	}
}

// TestCatalogListsEachTypeOnce: the catalog is the one list of public types
// (webhook subscriptions validate against it), so a type appears once.
func TestCatalogListsEachTypeOnce(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, typ := range events.Catalog() {
		if seen[typ] {
			t.Errorf("%s is listed twice", typ)
		}
		seen[typ] = true
	}
	if !seen[events.TypeContactCreated] || !seen[events.TypeSuppressionDeleted] {
		t.Errorf("catalog %v lacks the contact and suppression types", events.Catalog())
	}
}
