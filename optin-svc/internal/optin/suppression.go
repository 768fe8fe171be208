package optin

import "time"

// Reasons of a suppression entry (spec section 2).
const (
	ReasonManual    = "manual"
	ReasonBounce    = "bounce"
	ReasonComplaint = "complaint"
)

// ValidReason reports whether s names a reason.
func ValidReason(s string) bool {
	return s == ReasonManual || s == ReasonBounce || s == ReasonComplaint
}

// Sources of a suppression entry (contract section 10): who put it there.
const (
	SourceAPI         = "api"
	SourceInboundStop = "inbound_stop"
	SourceBounce      = "bounce"
)

// Suppression is a number that must not receive messages on a channel.
type Suppression struct {
	ID       string
	TenantID string
	// Phone is the E.164 number; only its last four digits ever leave the
	// service.
	Phone string
	// ContactPhoneID is contacts-svc's phone record id when the entry was
	// made through the API, else "".
	ContactPhoneID string
	Reason         string
	Channel        string
	Source         string
	CreatedAt      time.Time
	// StoppedAt is when a recipient's STOP found the entry already there
	// (made by the API or a bounce): the entry keeps its source, and the
	// tenant can no longer lift what the recipient asked for. nil when no
	// STOP holds it, and for inbound_stop entries (held by their source).
	StoppedAt *time.Time
}

// HeldByRecipient reports whether the recipient's STOP holds the entry.
func (s Suppression) HeldByRecipient() bool {
	return s.Source == SourceInboundStop || s.StoppedAt != nil
}

// CanDeleteThroughAPI reports whether the API may lift the entry: an entry
// the recipient's STOP holds is lifted only by their START.
func (s Suppression) CanDeleteThroughAPI() error {
	if s.HeldByRecipient() {
		return ErrSuppressionLocked
	}
	return nil
}
