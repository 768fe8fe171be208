package client

import "time"

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

// Role is a named set of abilities of a tenant.
type Role struct {
	Name      string   `json:"name"`
	Abilities []string `json:"abilities"`
}
