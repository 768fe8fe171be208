package authz_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/authz"
)

// specAssignable is the spec's section 5 "Assignable abilities" table,
// copied row by row.
func specAssignable() []string {
	return []string{
		"api:view-any-contact", "api:view-contact", "api:create-contact", "api:update-contact",
		"api:delete-contact", "api:restore-contact", "api:view-any-receivable", "api:view-receivable",
		"api:create-receivable", "api:update-receivable", "api:delete-receivable", "api:restore-receivable",
		"api:view-any-payable", "api:view-payable", "api:create-payable", "api:update-payable",
		"api:delete-payable", "api:restore-payable", "api:view-any-transaction", "api:view-transaction",
		"api:view-token-transaction", "api:create-transaction", "api:update-transaction", "api:delete-transaction",
		"api:restore-transaction", "api:resend-transaction", "api:view-any-transaction-field-definition", "api:view-transaction-field-definition",
		"api:create-transaction-field-definition", "api:update-transaction-field-definition", "api:delete-transaction-field-definition", "api:restore-transaction-field-definition",
		"api:view-any-webhook", "api:view-webhook", "api:create-webhook", "api:update-webhook",
		"api:delete-webhook", "api:view-any-campaign", "api:view-campaign", "api:create-campaign",
		"api:update-campaign", "api:delete-campaign", "api:restore-campaign", "api:assign-campaign",
		"api:view-any-message", "api:view-message", "api:create-message", "api:update-message",
		"api:delete-message", "api:restore-message", "api:test-send-message", "api:view-any-message-outbox",
		"api:view-message-outbox", "api:create-message-outbox", "api:update-message-outbox", "api:delete-message-outbox",
		"api:restore-message-outbox", "api:cancel-message-outbox", "api:view-any-opt-in-code", "api:view-opt-in-code",
		"api:create-opt-in-code", "api:update-opt-in-code", "api:delete-opt-in-code", "api:restore-opt-in-code",
		"api:import-opt-in-code", "api:view-any-suppression", "api:create-suppression", "api:delete-suppression",
		"api:view-payment-rail", "api:update-payment-rail", "api:delete-payment-rail", "api:view-any-role",
		"api:view-role", "api:create-role", "api:update-role", "api:delete-role",
		"api:restore-role", "api:view-any-user", "api:view-user", "api:create-user",
		"api:update-user", "api:delete-user", "api:restore-user", "api:view-any-subscription",
		"api:view-subscription", "api:create-subscription", "api:update-subscription", "api:delete-subscription",
		"api:restore-subscription", "api:view-any-support-ticket", "api:view-support-ticket", "api:create-support-ticket",
		"api:update-support-ticket", "api:delete-support-ticket", "api:view-any-tenant-config-meta", "api:view-tenant-config-meta",
		"api:create-tenant-config-meta", "api:update-tenant-config-meta", "api:delete-tenant-config-meta", "api:restore-tenant-config-meta",
	}
}

func TestAssignableMatchesSpec(t *testing.T) {
	t.Parallel()
	if diff := cmp.Diff(specAssignable(), authz.Assignable()); diff != "" {
		t.Errorf("Assignable (-spec +got):\n%s", diff)
	}
}

func TestAllAndKnown(t *testing.T) {
	t.Parallel()
	want := append(specAssignable(),
		"api:view-any-contact-field-definition", "api:view-contact-field-definition",
		"api:create-contact-field-definition", "api:update-contact-field-definition",
		"api:delete-contact-field-definition")
	if diff := cmp.Diff(want, authz.All()); diff != "" {
		t.Errorf("All (-want +got):\n%s", diff)
	}
	cat := authz.NewCatalogue()
	tests := []struct {
		ability string
		known   bool
	}{
		{"api:view-any-contact", true},
		{"api:delete-contact-field-definition", true},
		{"api:restore-transaction-field-definition", true},
		{"api:test-send-message", true},
		{"api:view-any-batch", false},
		{"api:restore-contact-field-definition", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := authz.Known(tt.ability); got != tt.known {
			t.Errorf("Known(%q) = %v, want %v", tt.ability, got, tt.known)
		}
		if got := cat.Known(tt.ability); got != tt.known {
			t.Errorf("Catalogue.Known(%q) = %v, want %v", tt.ability, got, tt.known)
		}
	}
}

func TestCatalogueReturnsFreshSlices(t *testing.T) {
	t.Parallel()
	a := authz.Assignable()
	a[0] = "mutated"
	if authz.Assignable()[0] != "api:view-any-contact" {
		t.Error("Assignable shares its backing array between calls")
	}
}
