package optin

import "time"

// Consent statuses (spec section 2).
const (
	ConsentPending   = "pending"
	ConsentConfirmed = "confirmed"
	ConsentRevoked   = "revoked"
)

// ValidConsentStatus reports whether s names a consent status.
func ValidConsentStatus(s string) bool {
	return s == ConsentPending || s == ConsentConfirmed || s == ConsentRevoked
}

// Sources of a consent: where the person gave it.
const (
	ConsentFromLandingPage = "landing_page"
	ConsentFromInboundSMS  = "inbound_sms"
)

// Consent is a contact's opt-in to SMS from the tenant.
type Consent struct {
	ID        string
	TenantID  string
	ContactID string
	Phone     string
	// OptInCodeID is the code whose landing page took the consent, or "".
	OptInCodeID string
	Status      string
	Channel     string
	Source      string
	// ConsentedAt is when the person consented (the form or the YES reply).
	ConsentedAt time.Time
	// ConfirmedAt is when the consent became confirmed (the YES of a
	// double opt-in; ConsentedAt otherwise).
	ConfirmedAt *time.Time
	RevokedAt   *time.Time
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Confirm moves a pending consent to confirmed; it reports false for any
// other status.
func (c *Consent) Confirm(at time.Time) bool {
	if c.Status != ConsentPending {
		return false
	}
	c.Status, c.ConfirmedAt, c.UpdatedAt = ConsentConfirmed, &at, at
	return true
}

// Revoke moves a pending or confirmed consent to revoked; it reports false
// when it is revoked already.
func (c *Consent) Revoke(at time.Time) bool {
	if c.Status == ConsentRevoked {
		return false
	}
	c.Status, c.RevokedAt, c.UpdatedAt = ConsentRevoked, &at, at
	return true
}

// Contact opt-in statuses (spec section 2).
const (
	OptInNone     = "none"
	OptInPending  = "pending"
	OptInOptedIn  = "opted_in"
	OptInOptedOut = "opted_out"
)

// ContactStatus is a contact's opt-in status (contract section 10), the
// first that holds: its number suppressed for sms → opted_out; a confirmed
// consent → opted_in; a pending one → pending; a revoked one → opted_out;
// else none.
func ContactStatus(suppressed bool, consents []Consent) string {
	if suppressed {
		return OptInOptedOut
	}
	has := map[string]bool{}
	for _, c := range consents {
		has[c.Status] = true
	}
	switch {
	case has[ConsentConfirmed]:
		return OptInOptedIn
	case has[ConsentPending]:
		return OptInPending
	case has[ConsentRevoked]:
		return OptInOptedOut
	}
	return OptInNone
}
