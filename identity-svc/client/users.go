package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// User is a dashboard user of a tenant, with its role's abilities. Its
// password never leaves identity-svc.
type User struct {
	ID           string     `json:"id"`
	TenantID     string     `json:"tenant_id"`
	Email        string     `json:"email"`
	Name         string     `json:"name"`
	Role         string     `json:"role"`
	Abilities    []string   `json:"abilities"`
	PasswordSet  bool       `json:"password_set"`
	DisabledAt   *time.Time `json:"disabled_at"`
	LastSignInAt *time.Time `json:"last_sign_in_at"`
	CreatedAt    time.Time  `json:"created_at"`
	UpdatedAt    time.Time  `json:"updated_at"`
}

// NewUser answers a user's creation on the operator plane: the user and
// the one-time link that sets its password, shown only this once.
type NewUser struct {
	User
	SetPasswordURL string `json:"set_password_url"`
}

// Role is a named set of abilities of a tenant. Default marks the four
// roles every tenant has (owner, developer, finance, support), which are
// fixed.
type Role struct {
	Name      string   `json:"name"`
	Abilities []string `json:"abilities"`
	Default   bool     `json:"default"`
}

// UserInput is the operator's request to create a dashboard user.
type UserInput struct {
	Email string `json:"email"`
	Name  string `json:"name"`
	Role  string `json:"role"`
}

// UserPage is a page of a tenant's users.
type UserPage struct {
	Data []User `json:"data"`
	Meta Meta   `json:"meta"`
}

// CreateUser creates a dashboard user with no password and returns the
// one-time link that sets it.
func (a *Admin) CreateUser(ctx context.Context, tenantID string, in UserInput) (*NewUser, error) {
	var out envelope[NewUser]
	if err := a.Do(ctx, http.MethodPost, tenantPath(tenantID)+"/users", in, &out); err != nil {
		return nil, fmt.Errorf("creating user: %w", err)
	}
	return &out.Data, nil
}

// ListUsers reads a page of a tenant's users, newest first.
func (a *Admin) ListUsers(ctx context.Context, tenantID string, opts ListOptions) (*UserPage, error) {
	var out UserPage
	if err := a.Do(ctx, http.MethodGet, tenantPath(tenantID)+"/users"+opts.query(), nil, &out); err != nil {
		return nil, fmt.Errorf("listing users: %w", err)
	}
	return &out, nil
}

// DisableUser disables a user: it can no longer sign in.
func (a *Admin) DisableUser(ctx context.Context, tenantID, id string) (*User, error) {
	var out envelope[User]
	if err := a.Do(ctx, http.MethodPost, tenantPath(tenantID)+"/users/"+url.PathEscape(id)+"/disable", nil, &out); err != nil {
		return nil, fmt.Errorf("disabling user: %w", err)
	}
	return &out.Data, nil
}

// SignIn checks a dashboard user's email and password: the user, or an
// *Error (401 unauthenticated for bad credentials, 429 sign_in_locked
// during a lockout).
func (c *Client) SignIn(ctx context.Context, email, password string) (*User, error) {
	var out envelope[User]
	body := map[string]string{"email": email, "password": password}
	if err := c.callService(ctx, http.MethodPost, "/internal/v1/sign-in", body, &out); err != nil {
		return nil, fmt.Errorf("signing in: %w", err)
	}
	return &out.Data, nil
}

// SetPassword spends a one-time set-password link's token: the user, or a
// 422 *Error naming token or password.
func (c *Client) SetPassword(ctx context.Context, linkToken, password string) (*User, error) {
	var out envelope[User]
	body := map[string]string{"token": linkToken, "password": password}
	if err := c.callService(ctx, http.MethodPost, "/internal/v1/set-password", body, &out); err != nil {
		return nil, fmt.Errorf("setting password: %w", err)
	}
	return &out.Data, nil
}

// ChangePassword sets a user's new password after checking the current one.
func (c *Client) ChangePassword(ctx context.Context, tenantID, userID, current, next string) error {
	body := map[string]string{"current_password": current, "password": next}
	if err := c.callService(ctx, http.MethodPost, userPath(tenantID, userID)+"/password", body, nil); err != nil {
		return fmt.Errorf("changing password: %w", err)
	}
	return nil
}

// User reads one of a tenant's users with its role's abilities.
func (c *Client) User(ctx context.Context, tenantID, userID string) (*User, error) {
	var out envelope[User]
	if err := c.callService(ctx, http.MethodGet, userPath(tenantID, userID), nil, &out); err != nil {
		return nil, fmt.Errorf("reading user: %w", err)
	}
	return &out.Data, nil
}

// Users reads a page of a tenant's users.
func (c *Client) Users(ctx context.Context, tenantID string, opts ListOptions) (*UserPage, error) {
	var out UserPage
	path := "/internal/v1/tenants/" + url.PathEscape(tenantID) + "/users" + opts.query()
	if err := c.callService(ctx, http.MethodGet, path, nil, &out); err != nil {
		return nil, fmt.Errorf("listing users: %w", err)
	}
	return &out, nil
}

// Roles reads a tenant's roles.
func (c *Client) Roles(ctx context.Context, tenantID string) ([]Role, error) {
	var out envelope[[]Role]
	if err := c.callService(ctx, http.MethodGet, "/internal/v1/tenants/"+url.PathEscape(tenantID)+"/roles", nil, &out); err != nil {
		return nil, fmt.Errorf("listing roles: %w", err)
	}
	return out.Data, nil
}

// UserToken returns an internal JWT that acts for a live user: the
// tenant's claims and the API abilities of the user's role, so every gate
// and tenant scope apply as on the API. Cached like service tokens.
func (c *Client) UserToken(ctx context.Context, tenantID, userID string) (string, error) {
	key := userTokenKey(tenantID, userID)
	if tok, ok := c.cachedToken(key); ok {
		return tok, nil
	}
	var out envelope[ServiceToken]
	if err := c.callService(ctx, http.MethodPost, userPath(tenantID, userID)+"/internal-token", nil, &out); err != nil {
		return "", fmt.Errorf("getting a user token: %w", err)
	}
	c.remember(key, out.Data)
	return out.Data.InternalToken, nil
}

// CreateUserToken mints an API token on a user's behalf: only abilities of
// the user's role (403 *Error otherwise). The plaintext is shown once.
func (c *Client) CreateUserToken(ctx context.Context, tenantID, userID, name string, abilities []string) (*NewToken, error) {
	var out envelope[NewToken]
	body := map[string]any{"name": name, "abilities": abilities}
	if err := c.callService(ctx, http.MethodPost, userPath(tenantID, userID)+"/tokens", body, &out); err != nil {
		return nil, fmt.Errorf("creating token: %w", err)
	}
	return &out.Data, nil
}

// Tokens reads a page of a tenant's API tokens (no secrets).
func (c *Client) Tokens(ctx context.Context, tenantID string, opts ListOptions) (*TokenPage, error) {
	var out TokenPage
	path := "/internal/v1/tenants/" + url.PathEscape(tenantID) + "/tokens" + opts.query()
	if err := c.callService(ctx, http.MethodGet, path, nil, &out); err != nil {
		return nil, fmt.Errorf("listing tokens: %w", err)
	}
	return &out, nil
}

// RevokeToken revokes one of a tenant's API tokens.
func (c *Client) RevokeToken(ctx context.Context, tenantID string, id int64) error {
	path := "/internal/v1/tenants/" + url.PathEscape(tenantID) + "/tokens/" + strconv.FormatInt(id, 10)
	if err := c.callService(ctx, http.MethodDelete, path, nil, nil); err != nil {
		return fmt.Errorf("revoking token: %w", err)
	}
	return nil
}

// InviteUser creates a user on behalf of a signed-in user whose role
// manages users (403 *Error otherwise) and returns the new user's one-time
// set-password link; a 422 *Error names email, name or role.
func (c *Client) InviteUser(ctx context.Context, tenantID, actorID string, in UserInput) (*NewUser, error) {
	var out envelope[NewUser]
	if err := c.callService(ctx, http.MethodPost, userPath(tenantID, actorID)+"/invitations", in, &out); err != nil {
		return nil, fmt.Errorf("inviting user: %w", err)
	}
	return &out.Data, nil
}

// DisableUser disables a user of the tenant on behalf of a signed-in user
// whose role manages users (403 *Error otherwise): the user can no longer
// sign in, and the internal tokens this client issued for them are dropped.
// A 422 *Error names user for oneself or the tenant's last active owner.
func (c *Client) DisableUser(ctx context.Context, tenantID, actorID, userID string) (*User, error) {
	var out envelope[User]
	body := map[string]string{"actor_id": actorID}
	if err := c.callService(ctx, http.MethodPost, userPath(tenantID, userID)+"/disable", body, &out); err != nil {
		return nil, fmt.Errorf("disabling user: %w", err)
	}
	c.forget(userTokenKey(tenantID, userID))
	return &out.Data, nil
}

// CreateRole creates a custom role on behalf of a signed-in user whose role
// manages users, with abilities that user holds (403 *Error otherwise); a
// 422 *Error names name or abilities.
func (c *Client) CreateRole(ctx context.Context, tenantID, actorID string, r Role) (*Role, error) {
	var out envelope[Role]
	body := map[string]any{"actor_id": actorID, "name": r.Name, "abilities": r.Abilities}
	if err := c.callService(ctx, http.MethodPost, "/internal/v1/tenants/"+url.PathEscape(tenantID)+"/roles", body, &out); err != nil {
		return nil, fmt.Errorf("creating role: %w", err)
	}
	return &out.Data, nil
}

// UpdateRole replaces a custom role's abilities on behalf of a signed-in
// user whose role manages users (403 *Error for abilities that user lacks;
// 422 for a default role or bad abilities; 404 for no such role).
func (c *Client) UpdateRole(ctx context.Context, tenantID, actorID string, r Role) (*Role, error) {
	var out envelope[Role]
	body := map[string]any{"actor_id": actorID, "abilities": r.Abilities}
	path := "/internal/v1/tenants/" + url.PathEscape(tenantID) + "/roles/" + url.PathEscape(r.Name)
	if err := c.callService(ctx, http.MethodPut, path, body, &out); err != nil {
		return nil, fmt.Errorf("updating role: %w", err)
	}
	return &out.Data, nil
}

// userTokenKey is the cache key of a user's internal token.
func userTokenKey(tenantID, userID string) tokenKey {
	return tokenKey("user\x00" + tenantID + "\x00" + userID)
}

func userPath(tenantID, userID string) string {
	return "/internal/v1/tenants/" + url.PathEscape(tenantID) + "/users/" + url.PathEscape(userID)
}
