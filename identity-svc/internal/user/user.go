// Package user holds the dashboard's users and roles: a user belongs to one
// tenant, signs in with email and password and holds one role; a role is a
// named set of abilities. No HTTP, no SQL.
package user

import (
	"math"
	"net/http"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/paylane/paylane/libs/apierr"
)

// Errors of the user domain, with the API answer each renders as.
var (
	// ErrNotFound: no such user in the tenant.
	ErrNotFound = apierr.NewSentinel("user: not found", apierr.NotFound())
	// ErrEmailTaken: the tenant already has a user with this email.
	ErrEmailTaken = apierr.NewSentinel("user: email taken", apierr.Field("email", "The email has already been taken."))
	// ErrUnknownRole: the tenant has no role of that name.
	ErrUnknownRole = apierr.NewSentinel("user: unknown role", apierr.Field("role", "The selected role is invalid."))
	// ErrBadCredentials: the email and password do not open a live user.
	ErrBadCredentials = apierr.NewSentinel("user: bad credentials",
		apierr.New(http.StatusUnauthorized, apierr.CodeUnauthenticated, "These credentials do not match our records."))
	// ErrLinkInvalid: the set-password link is unknown, used or expired.
	ErrLinkInvalid = apierr.NewSentinel("user: set-password link invalid",
		apierr.Field("token", "The link is invalid, used or expired: ask an owner for a new one."))
	// ErrForbidden: the user's role does not allow the action.
	ErrForbidden = apierr.NewSentinel("user: forbidden by role", apierr.Forbidden())
)

// CodeSignInLocked is the error code of a sign-in refused during a lockout.
const CodeSignInLocked = "sign_in_locked"

// LockedError refuses a sign-in while the email is locked out.
type LockedError struct {
	Until time.Time
	// Now is when the sign-in was refused (for Retry-After).
	Now time.Time
}

// Error implements the error interface.
func (e *LockedError) Error() string { return "user: sign-in locked" }

// APIError is 429 sign_in_locked with Retry-After until the lock ends.
func (e *LockedError) APIError() *apierr.Error {
	a := apierr.New(http.StatusTooManyRequests, CodeSignInLocked, "Too many sign-in attempts: try again later.")
	a.RetryAfter = max(1, int(math.Ceil(e.Until.Sub(e.Now).Seconds())))
	return a
}

// User is a person who signs in to a tenant's dashboard. The password hash
// never leaves identity-svc.
type User struct {
	ID           string
	TenantID     string
	Email        string
	Name         string
	Role         string
	Abilities    []string
	PasswordSet  bool
	DisabledAt   *time.Time
	LastSignInAt *time.Time
	CreatedAt    time.Time
	UpdatedAt    time.Time
	PasswordHash string
}

// Invite is the operator's request to create a user.
type Invite struct {
	Email, Name, Role string
}

// NormalizeEmail is the form emails are stored and compared in.
func NormalizeEmail(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// Validate checks an invite; it returns the messages per field, or nil.
func (in Invite) Validate() map[string][]string {
	out := map[string][]string{}
	email := NormalizeEmail(in.Email)
	switch {
	case email == "":
		out["email"] = []string{"The email field is required."}
	case len(email) > 254 || !validEmail(email):
		out["email"] = []string{"The email field must be a valid email address."}
	}
	name := strings.TrimSpace(in.Name)
	switch {
	case name == "":
		out["name"] = []string{"The name field is required."}
	case utf8.RuneCountInString(name) > 120:
		out["name"] = []string{"The name field must not be greater than 120 characters."}
	}
	if strings.TrimSpace(in.Role) == "" {
		out["role"] = []string{"The role field is required."}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// Normalize returns the invite with its email normalised and its name and
// role trimmed.
func (in Invite) Normalize() Invite {
	return Invite{Email: NormalizeEmail(in.Email), Name: strings.TrimSpace(in.Name), Role: strings.TrimSpace(in.Role)}
}

func validEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && strings.Contains(s[strings.LastIndex(s, "@"):], ".")
}

// Password length bounds, in characters.
const (
	MinPasswordLength = 12
	MaxPasswordLength = 256
)

// ValidatePassword returns the messages of a new password, or nil.
func ValidatePassword(p string) []string {
	n := utf8.RuneCountInString(p)
	switch {
	case p == "":
		return []string{"The password field is required."}
	case n < MinPasswordLength:
		return []string{"The password field must be at least 12 characters."}
	case n > MaxPasswordLength:
		return []string{"The password field must not be greater than 256 characters."}
	}
	return nil
}
