package token

import (
	"regexp"
	"strings"
)

// servicePattern is what a calling service may call itself: the names of
// Paylane's services ("optin-svc", "batch-worker"), lower case.
var servicePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)

// ServiceGrant is a request for an internal token that a service uses for a
// tenant on its own behalf (a background job, a hosted page without a
// user's token): no API token stands behind it.
type ServiceGrant struct {
	TenantID  string
	Abilities []string
	// Service names the caller; the token's subject is Subject().
	Service string
}

// Validate checks a grant; known reports whether an ability exists. It
// returns the messages per field, or nil. Whether the tenant exists is for
// the caller to decide.
func (g ServiceGrant) Validate(known func(string) bool) map[string][]string {
	out := map[string][]string{}
	if strings.TrimSpace(g.TenantID) == "" {
		out["tenant_id"] = []string{"The tenant id field is required."}
	}
	if msgs := ValidateAbilities(g.Abilities, known); msgs != nil {
		out["abilities"] = msgs
	}
	switch {
	case g.Service == "":
		out["service"] = []string{"The service field is required."}
	case !servicePattern.MatchString(g.Service):
		out["service"] = []string{"The service field must be a service name: lower-case letters, digits, '.', '_' or '-', at most 63 characters."}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// Normalize returns the grant with its abilities deduplicated in their
// given order.
func (g ServiceGrant) Normalize() ServiceGrant {
	g.Abilities = dedupe(g.Abilities)
	return g
}

// Subject is the sub claim of the grant's internal token: "service:<name>",
// which never collides with an API token's number.
func (g ServiceGrant) Subject() string { return "service:" + g.Service }
