package app

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/paylane/paylane/identity-svc/internal/store"
	"github.com/paylane/paylane/identity-svc/internal/tenant"
	"github.com/paylane/paylane/identity-svc/internal/token"
	"github.com/paylane/paylane/identity-svc/internal/user"
	"github.com/paylane/paylane/libs/ids"
)

// LinkTTL is how long a set-password link stays valid.
const LinkTTL = 72 * time.Hour

// SetPasswordPath is the dashboard page a set-password link opens.
const SetPasswordPath = "/dashboard/set-password"

// UserStore is the persistence of users and roles.
type UserStore interface {
	CreateUser(ctx context.Context, u user.User, link store.Link) (user.User, error)
	GetUser(ctx context.Context, tenantID, id string) (user.User, error)
	ListUsers(ctx context.Context, tenantID string, limit, offset int) ([]user.User, int, error)
	ListRoles(ctx context.Context, tenantID string) ([]user.Role, error)
	DisableUser(ctx context.Context, tenantID, id string, now time.Time, keepOwner bool) (user.User, error)
	CreateRole(ctx context.Context, tenantID string, r user.Role, now time.Time) (user.Role, error)
	UpdateRole(ctx context.Context, tenantID string, r user.Role, now time.Time) (user.Role, error)
	UsersByEmail(ctx context.Context, email string) ([]user.User, error)
	SetPassword(ctx context.Context, tenantID, id, hash string, now time.Time) error
	RecordSignIn(ctx context.Context, tenantID, id string, now time.Time) error
	SignInLockedUntil(ctx context.Context, email string, now time.Time) (*time.Time, error)
	RecordSignInFailure(ctx context.Context, email string, now time.Time) (*time.Time, error)
	ClearSignInFailures(ctx context.Context, email string) error
	UseLink(ctx context.Context, secretHash []byte, hash string, now time.Time) (user.User, error)
}

// Invitation is a new user and the one-time link that sets its password.
type Invitation struct {
	User user.User
	Link string
}

// InviteUser creates a user of the tenant with no password and returns the
// one-time set-password link (valid LinkTTL), on the dashboard's public URL.
func (a *App) InviteUser(ctx context.Context, tenantID string, in user.Invite) (Invitation, error) {
	if !ids.Valid(tenantID) {
		return Invitation{}, tenant.ErrNotFound
	}
	if fields := in.Validate(); fields != nil {
		return Invitation{}, &ValidationError{Fields: fields}
	}
	in = in.Normalize()
	if _, err := a.GetTenant(ctx, tenantID); err != nil {
		return Invitation{}, err
	}
	secret, link, err := a.newLink()
	if err != nil {
		return Invitation{}, err
	}
	now := a.now()
	u, err := a.users.CreateUser(ctx, user.User{
		ID: ids.NewAt(now), TenantID: tenantID, Email: in.Email, Name: in.Name, Role: in.Role, CreatedAt: now,
	}, store.Link{SecretSHA256: hashSecret(secret), ExpiresAt: now.Add(LinkTTL)})
	switch {
	case err == nil:
	case isErr(err, user.ErrEmailTaken):
		return Invitation{}, &ValidationError{Fields: map[string][]string{"email": {"The email has already been taken."}}}
	case isErr(err, user.ErrUnknownRole):
		return Invitation{}, &ValidationError{Fields: map[string][]string{"role": {"The selected role is invalid."}}}
	default:
		return Invitation{}, fmt.Errorf("inviting user: %w", err)
	}
	return Invitation{User: u, Link: link}, nil
}

// newLink returns a fresh link secret and the URL that carries it.
func (a *App) newLink() (string, string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", "", fmt.Errorf("reading link secret: %w", err)
	}
	secret := base64.RawURLEncoding.EncodeToString(b)
	return secret, strings.TrimRight(a.publicURL, "/") + SetPasswordPath + "?token=" + url.QueryEscape(secret), nil
}

func hashSecret(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
}

// SignIn checks an email and password. A locked email is refused before
// the password is looked at (*user.LockedError); a wrong password, an
// unknown email and a disabled user are all user.ErrBadCredentials and
// count towards the lockout. Where several tenants have a user with the
// email, the oldest whose password matches signs in.
func (a *App) SignIn(ctx context.Context, email, password string) (user.User, error) {
	email = user.NormalizeEmail(email)
	now := a.now()
	if email == "" || password == "" || len(password) > 4*user.MaxPasswordLength {
		return user.User{}, user.ErrBadCredentials
	}
	until, err := a.users.SignInLockedUntil(ctx, email, now)
	if err != nil {
		return user.User{}, err
	}
	if until != nil {
		return user.User{}, &user.LockedError{Until: *until, Now: now}
	}
	candidates, err := a.users.UsersByEmail(ctx, email)
	if err != nil {
		return user.User{}, err
	}
	if len(candidates) == 0 {
		user.CheckPassword(user.DummyHash, password)
	}
	slices.SortFunc(candidates, func(x, y user.User) int { return x.CreatedAt.Compare(y.CreatedAt) })
	for _, u := range candidates {
		if u.DisabledAt == nil && u.PasswordSet && user.CheckPassword(u.PasswordHash, password) {
			if err := a.users.ClearSignInFailures(ctx, email); err != nil {
				return user.User{}, err
			}
			if err := a.users.RecordSignIn(ctx, u.TenantID, u.ID, now); err != nil {
				return user.User{}, fmt.Errorf("recording sign-in: %w", err)
			}
			u.LastSignInAt = &now
			return u, nil
		}
	}
	locked, err := a.users.RecordSignInFailure(ctx, email, now)
	if err != nil {
		return user.User{}, err
	}
	if locked != nil {
		return user.User{}, &user.LockedError{Until: *locked, Now: now}
	}
	return user.User{}, user.ErrBadCredentials
}

// SetPasswordWithLink spends a one-time link and sets the password.
func (a *App) SetPasswordWithLink(ctx context.Context, secret, password string) (user.User, error) {
	fields := map[string][]string{}
	if secret == "" {
		fields["token"] = []string{"The token field is required."}
	}
	if msgs := user.ValidatePassword(password); msgs != nil {
		fields["password"] = msgs
	}
	if len(fields) > 0 {
		return user.User{}, &ValidationError{Fields: fields}
	}
	hash, err := user.HashPassword(password)
	if err != nil {
		return user.User{}, err
	}
	u, err := a.users.UseLink(ctx, hashSecret(secret), hash, a.now())
	if isErr(err, user.ErrLinkInvalid) {
		return user.User{}, &ValidationError{Fields: map[string][]string{
			"token": {"The link is invalid, used or expired: ask an owner for a new one."}}}
	}
	return u, err
}

// ChangePassword sets a new password after checking the current one.
func (a *App) ChangePassword(ctx context.Context, tenantID, id, current, next string) error {
	u, err := a.GetUser(ctx, tenantID, id)
	if err != nil {
		return err
	}
	if u.DisabledAt != nil {
		return user.ErrNotFound
	}
	fields := map[string][]string{}
	if !u.PasswordSet || !user.CheckPassword(u.PasswordHash, current) {
		fields["current_password"] = []string{"The current password is incorrect."}
	}
	if msgs := user.ValidatePassword(next); msgs != nil {
		fields["password"] = msgs
	}
	if len(fields) > 0 {
		return &ValidationError{Fields: fields}
	}
	hash, err := user.HashPassword(next)
	if err != nil {
		return err
	}
	return a.users.SetPassword(ctx, tenantID, id, hash, a.now())
}

// GetUser reads one of the tenant's users; user.ErrNotFound for an unknown
// or malformed id.
func (a *App) GetUser(ctx context.Context, tenantID, id string) (user.User, error) {
	if !ids.Valid(tenantID) || !ids.Valid(id) {
		return user.User{}, user.ErrNotFound
	}
	return a.users.GetUser(ctx, tenantID, id)
}

// ListUsers reads a page of the tenant's users, newest first.
func (a *App) ListUsers(ctx context.Context, tenantID string, p Page) ([]user.User, int, error) {
	if _, err := a.GetTenant(ctx, tenantID); err != nil {
		return nil, 0, err
	}
	return a.users.ListUsers(ctx, tenantID, p.Limit, p.Offset)
}

// ListRoles reads the tenant's roles.
func (a *App) ListRoles(ctx context.Context, tenantID string) ([]user.Role, error) {
	if _, err := a.GetTenant(ctx, tenantID); err != nil {
		return nil, err
	}
	return a.users.ListRoles(ctx, tenantID)
}

// DisableUser disables a user on the operator plane: it can no longer sign
// in nor act. An operator may disable a tenant's last owner (to stop a
// tenant at once); users themselves cannot (DisableUserAs).
func (a *App) DisableUser(ctx context.Context, tenantID, id string) (user.User, error) {
	if !ids.Valid(tenantID) || !ids.Valid(id) {
		return user.User{}, user.ErrNotFound
	}
	return a.users.DisableUser(ctx, tenantID, id, a.now(), false)
}

// live reads a user that may act: not disabled.
func (a *App) live(ctx context.Context, tenantID, id string) (user.User, error) {
	u, err := a.GetUser(ctx, tenantID, id)
	if err != nil {
		return user.User{}, err
	}
	if u.DisabledAt != nil {
		return user.User{}, user.ErrNotFound
	}
	return u, nil
}

// IssueUserToken signs an internal token for a live user: the tenant's
// claims and the API abilities of the user's role now (a role change or a
// disabled user takes effect on the next token), subject "user:<id>".
func (a *App) IssueUserToken(ctx context.Context, tenantID, id string) (ServiceToken, error) {
	u, err := a.live(ctx, tenantID, id)
	if err != nil {
		return ServiceToken{}, err
	}
	ten, err := a.GetTenant(ctx, tenantID)
	if err != nil {
		return ServiceToken{}, err
	}
	claims := tenantClaims(ten, user.Mintable(u.Abilities, a.known))
	claims.Subject = "user:" + u.ID
	signed, expires, err := a.signer.Sign(claims, a.tokenTTL)
	if err != nil {
		return ServiceToken{}, fmt.Errorf("signing user token: %w", err)
	}
	return ServiceToken{InternalToken: signed, ExpiresAt: expires}, nil
}

// CreateUserToken mints an API token for the tenant on a user's behalf:
// only abilities the user's role holds (user.ErrForbidden otherwise), and
// only for a role that manages tokens.
func (a *App) CreateUserToken(ctx context.Context, tenantID, id string, m token.Mint) (MintedToken, error) {
	u, err := a.live(ctx, tenantID, id)
	if err != nil {
		return MintedToken{}, err
	}
	if !slices.Contains(u.Abilities, user.ManageTokens) {
		return MintedToken{}, user.ErrForbidden
	}
	for _, ab := range m.Abilities {
		if a.known(ab) && !slices.Contains(u.Abilities, ab) {
			return MintedToken{}, user.ErrForbidden
		}
	}
	return a.CreateToken(ctx, tenantID, m)
}

func isErr(err, target error) bool { return err != nil && errors.Is(err, target) }

// InviteUserAs invites a user on behalf of a signed-in user whose role
// manages users (user.ErrForbidden otherwise).
func (a *App) InviteUserAs(ctx context.Context, tenantID, actorID string, in user.Invite) (Invitation, error) {
	actor, err := a.live(ctx, tenantID, actorID)
	if err != nil {
		return Invitation{}, err
	}
	if !slices.Contains(actor.Abilities, user.ManageUsers) {
		return Invitation{}, user.ErrForbidden
	}
	return a.InviteUser(ctx, tenantID, in)
}
