package user

import (
	"slices"
	"strings"

	"github.com/paylane/paylane/libs/authz"
)

// Dashboard capabilities: abilities outside the API's assignable set that
// only the dashboard checks. A token never carries them.
const (
	// ManageTokens opens Settings → API Tokens.
	ManageTokens = "dashboard:manage-tokens"
	// ManageUsers opens Users and roles.
	ManageUsers = "dashboard:manage-users"
)

// Role is a named set of abilities of a tenant.
type Role struct {
	Name      string
	Abilities []string
}

// Names of the default roles every tenant gets.
const (
	RoleOwner     = "owner"
	RoleDeveloper = "developer"
	RoleFinance   = "finance"
	RoleSupport   = "support"
)

// DefaultRoles are the four roles of contract section 14, created with
// every tenant: owner (every ability, manages users and roles), developer
// (API tokens, webhooks, read access), finance (receivables, payables,
// campaigns, read contacts), support (read contacts and transactions,
// suppression). Each call returns fresh slices.
func DefaultRoles() []Role {
	assignable := authz.Assignable()
	owner := append(slices.Clone(assignable), ManageTokens, ManageUsers)

	var developer []string
	for _, a := range assignable {
		if isRead(a) && !strings.HasSuffix(a, "-role") && !strings.HasSuffix(a, "-user") {
			developer = append(developer, a)
		}
	}
	for _, a := range assignable {
		if strings.HasSuffix(a, "-webhook") && !isRead(a) {
			developer = append(developer, a)
		}
	}
	developer = append(developer, ManageTokens)

	var finance []string
	for _, g := range authz.Groups() {
		switch g.Name {
		case "Receivables", "Payables", "Transactions", "Campaigns":
			finance = append(finance, g.Abilities...)
		}
	}
	finance = append(finance, "api:view-any-contact", "api:view-contact")

	support := []string{
		"api:view-any-contact", "api:view-contact",
		"api:view-any-transaction", "api:view-transaction",
		"api:view-any-receivable", "api:view-receivable",
		"api:view-any-payable", "api:view-payable",
		"api:view-any-suppression", "api:create-suppression", "api:delete-suppression",
	}
	return []Role{
		{Name: RoleOwner, Abilities: owner},
		{Name: RoleDeveloper, Abilities: developer},
		{Name: RoleFinance, Abilities: finance},
		{Name: RoleSupport, Abilities: support},
	}
}

func isRead(a string) bool {
	return strings.HasPrefix(a, "api:view-")
}

// Mintable are the abilities of role that an API token may carry: the
// known API abilities, without the dashboard's own.
func Mintable(abilities []string, known func(string) bool) []string {
	var out []string
	for _, a := range abilities {
		if known(a) {
			out = append(out, a)
		}
	}
	return out
}
