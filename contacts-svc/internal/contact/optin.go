package contact

import "time"

// Opt-in statuses of a contact (contract section 10).
const (
	OptInNone     = "none"
	OptInPending  = "pending"
	OptInOptedIn  = "opted_in"
	OptInOptedOut = "opted_out"
)

// OptIn is a contact's SMS opt-in standing, owned by optin-svc and shown on
// a single contact read.
type OptIn struct {
	Status   string
	Consents []Consent
}

// Consent is one opt-in consent of a contact (contract section 10).
type Consent struct {
	ID          string
	ContactID   string
	OptInCodeID string
	Status      string
	Channel     string
	ConsentedAt *time.Time
	RevokedAt   *time.Time
	CreatedAt   time.Time
}
