package authz

import "slices"

// Group is a named row of the ability catalogue (spec section 5).
type Group struct {
	Name      string
	Abilities []string
}

// Groups returns the assignable abilities by group, in the order of the
// spec's "Assignable abilities" table. Each call returns fresh slices.
func Groups() []Group {
	return []Group{
		{"Contacts", crud("contact", "restore")},
		{"Receivables", crud("receivable", "restore")},
		{"Payables", crud("payable", "restore")},
		{"Transactions", []string{
			"api:view-any-transaction", "api:view-transaction", "api:view-token-transaction",
			"api:create-transaction", "api:update-transaction", "api:delete-transaction",
			"api:restore-transaction", "api:resend-transaction",
		}},
		{"Transaction field definitions", crud("transaction-field-definition", "restore")},
		{"Webhooks", crud("webhook")},
		{"Campaigns", crud("campaign", "restore", "assign")},
		{"Messages", crud("message", "restore", "test-send")},
		{"Message outbox", crud("message-outbox", "restore", "cancel")},
		{"Opt-in codes", crud("opt-in-code", "restore", "import")},
		{"Suppression", []string{"api:view-any-suppression", "api:create-suppression", "api:delete-suppression"}},
		{"Payment rail", []string{"api:view-payment-rail", "api:update-payment-rail", "api:delete-payment-rail"}},
		{"Roles", crud("role", "restore")},
		{"Users", crud("user", "restore")},
		{"Subscriptions", crud("subscription", "restore")},
		{"Support tickets", crud("support-ticket")},
		{"Tenant config meta", crud("tenant-config-meta", "restore")},
	}
}

// crud returns api:{view-any,view,create,update,delete}-<resource> followed
// by api:<verb>-<resource> for each extra verb.
func crud(resource string, extra ...string) []string {
	verbs := append([]string{"view-any", "view", "create", "update", "delete"}, extra...)
	out := make([]string, len(verbs))
	for i, v := range verbs {
		out[i] = "api:" + v + "-" + resource
	}
	return out
}

// Assignable returns the abilities a token may be minted with, in the
// order of the spec's table.
func Assignable() []string {
	var out []string
	for _, g := range Groups() {
		out = append(out, g.Abilities...)
	}
	return out
}

// FieldDefinitionAbilities returns the contact-field-definition abilities,
// which the tenant administrator manages outside the assignable set (the
// transaction-field-definition ones are assignable already).
func FieldDefinitionAbilities() []string {
	return crud("contact-field-definition")
}

// All returns every ability the deployment knows: Assignable then
// FieldDefinitionAbilities, without duplicates.
func All() []string {
	out := Assignable()
	for _, a := range FieldDefinitionAbilities() {
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

// Known reports whether a is an ability of All. It builds the catalogue on
// each call; code that checks many abilities should hold a Catalogue.
func Known(a string) bool {
	return NewCatalogue().Known(a)
}

// Catalogue answers membership questions about All with a map built once.
// It is immutable after NewCatalogue, so one value may be shared.
type Catalogue struct {
	known map[string]struct{}
}

// NewCatalogue builds the lookup set of All.
func NewCatalogue() Catalogue {
	all := All()
	known := make(map[string]struct{}, len(all))
	for _, a := range all {
		known[a] = struct{}{}
	}
	return Catalogue{known: known}
}

// Known reports whether a is an ability of All.
func (c Catalogue) Known(a string) bool {
	_, ok := c.known[a]
	return ok
}
