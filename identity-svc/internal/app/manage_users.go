package app

import (
	"context"
	"slices"

	"github.com/paylane/paylane/identity-svc/internal/user"
	"github.com/paylane/paylane/libs/ids"
)

// manager reads the signed-in user acting on users and roles: live and
// holding user.ManageUsers (user.ErrForbidden otherwise).
func (a *App) manager(ctx context.Context, tenantID, actorID string) (user.User, error) {
	actor, err := a.live(ctx, tenantID, actorID)
	if err != nil {
		return user.User{}, err
	}
	if !slices.Contains(actor.Abilities, user.ManageUsers) {
		return user.User{}, user.ErrForbidden
	}
	return actor, nil
}

// DisableUserAs disables a user on behalf of a signed-in user whose role
// manages users: not themselves (user.ErrSelf), never the tenant's last
// live owner (user.ErrLastOwner).
func (a *App) DisableUserAs(ctx context.Context, tenantID, actorID, id string) (user.User, error) {
	if _, err := a.manager(ctx, tenantID, actorID); err != nil {
		return user.User{}, err
	}
	if id == actorID {
		return user.User{}, user.ErrSelf
	}
	if !ids.Valid(id) {
		return user.User{}, user.ErrNotFound
	}
	return a.users.DisableUser(ctx, tenantID, id, a.now(), true)
}

// CreateRoleAs creates a custom role on behalf of a signed-in user whose
// role manages users, with abilities that user's role holds
// (user.ErrForbidden otherwise): nobody hands out more than they have.
func (a *App) CreateRoleAs(ctx context.Context, tenantID, actorID string, r user.Role) (user.Role, error) {
	actor, err := a.manager(ctx, tenantID, actorID)
	if err != nil {
		return user.Role{}, err
	}
	r = normalizeRole(r)
	if fields := user.ValidateRole(r, true, a.known); fields != nil {
		return user.Role{}, &ValidationError{Fields: fields}
	}
	if user.IsDefault(r.Name) {
		return user.Role{}, user.ErrRoleTaken
	}
	if !holdsAll(actor, r.Abilities) {
		return user.Role{}, user.ErrForbidden
	}
	return a.users.CreateRole(ctx, tenantID, r, a.now())
}

// UpdateRoleAs replaces a custom role's abilities on behalf of a signed-in
// user whose role manages users, within that user's abilities. The default
// roles are fixed (user.ErrDefaultRole); the role's users hold the new
// abilities on their next request.
func (a *App) UpdateRoleAs(ctx context.Context, tenantID, actorID string, r user.Role) (user.Role, error) {
	actor, err := a.manager(ctx, tenantID, actorID)
	if err != nil {
		return user.Role{}, err
	}
	r = normalizeRole(r)
	if !user.ValidRoleName(r.Name) {
		return user.Role{}, user.ErrRoleNotFound
	}
	if user.IsDefault(r.Name) {
		return user.Role{}, user.ErrDefaultRole
	}
	if fields := user.ValidateRole(r, false, a.known); fields != nil {
		return user.Role{}, &ValidationError{Fields: fields}
	}
	if !holdsAll(actor, r.Abilities) {
		return user.Role{}, user.ErrForbidden
	}
	return a.users.UpdateRole(ctx, tenantID, r, a.now())
}

// normalizeRole sorts and deduplicates a role's abilities.
func normalizeRole(r user.Role) user.Role {
	return user.Role{Name: r.Name, Abilities: slices.Compact(slices.Sorted(slices.Values(r.Abilities)))}
}

func holdsAll(u user.User, abilities []string) bool {
	for _, ab := range abilities {
		if !slices.Contains(u.Abilities, ab) {
			return false
		}
	}
	return true
}
