package user

import (
	"regexp"
	"slices"

	"github.com/paylane/paylane/libs/apierr"
)

// Errors of role management and of disabling users, with the API answer
// each renders as.
var (
	// ErrRoleNotFound: the tenant has no role of that name.
	ErrRoleNotFound = apierr.NewSentinel("user: role not found", apierr.NotFound())
	// ErrRoleTaken: the tenant already has a role of that name.
	ErrRoleTaken = apierr.NewSentinel("user: role taken", apierr.Field("name", "The name has already been taken."))
	// ErrDefaultRole: the four default roles are fixed.
	ErrDefaultRole = apierr.NewSentinel("user: default role",
		apierr.Field("name", "The default roles (owner, developer, finance, support) cannot be changed."))
	// ErrLastOwner: a tenant keeps at least one live owner.
	ErrLastOwner = apierr.NewSentinel("user: last owner",
		apierr.Field("user", "This is the organisation's last active owner: make another user owner first."))
	// ErrSelf: a user does not disable themselves.
	ErrSelf = apierr.NewSentinel("user: self", apierr.Field("user", "You cannot disable yourself."))
)

// roleName is the form of a role name (the roles table checks it too).
var roleName = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,63}$`)

// ValidRoleName reports whether name has the form of a role name.
func ValidRoleName(name string) bool { return roleName.MatchString(name) }

// IsDefault reports whether name is one of the default roles.
func IsDefault(name string) bool {
	return slices.Contains([]string{RoleOwner, RoleDeveloper, RoleFinance, RoleSupport}, name)
}

// Dashboard reports whether a is one of the dashboard's own abilities.
func Dashboard(a string) bool { return a == ManageTokens || a == ManageUsers }

// ValidateRole checks a custom role's name (when checkName) and abilities:
// each a known API ability (known) or a dashboard ability, at least one.
// It returns the messages per field, or nil.
func ValidateRole(r Role, checkName bool, known func(string) bool) map[string][]string {
	out := map[string][]string{}
	if checkName {
		switch {
		case r.Name == "":
			out["name"] = []string{"The name field is required."}
		case !roleName.MatchString(r.Name):
			out["name"] = []string{"The name must start with a lower-case letter and hold only lower-case letters, digits, - and _ (at most 64)."}
		}
	}
	switch {
	case len(r.Abilities) == 0:
		out["abilities"] = []string{"Choose at least one ability."}
	case len(r.Abilities) > 256:
		out["abilities"] = []string{"The abilities field must not have more than 256 items."}
	default:
		for _, a := range r.Abilities {
			if !known(a) && !Dashboard(a) {
				out["abilities"] = []string{"The abilities field holds an unknown ability."}
				break
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
