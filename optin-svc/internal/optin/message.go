package optin

import "time"

// Message statuses (contract section 10).
const (
	MessageQueued     = "queued"
	MessageSent       = "sent"
	MessageDelivered  = "delivered"
	MessageFailed     = "failed"
	MessageSuppressed = "suppressed"
)

// Message is one SMS the service sends or refused to send.
type Message struct {
	ID             string
	TenantID       string
	NotificationID string
	Kind           string
	TransactionID  string
	ContactID      string
	To             string
	From           string
	Body           string
	Status         string
	// Provider names the adapter that sent it (sink, twilio).
	Provider          string
	ProviderMessageID string
	Attempts          int
	FailureReason     string
	SentAt            *time.Time
	DeliveredAt       *time.Time
	FailedAt          *time.Time
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

// messageMoves are the status changes a message may make: a provider's
// late or repeated report never moves it back.
var messageMoves = map[string][]string{
	MessageQueued: {MessageSent, MessageDelivered, MessageFailed, MessageSuppressed},
	MessageSent:   {MessageDelivered, MessageFailed},
}

// CanMove reports whether the message may move to status.
func (m Message) CanMove(status string) bool {
	for _, to := range messageMoves[m.Status] {
		if to == status {
			return true
		}
	}
	return false
}

// Move sets the status and the timestamp that goes with it; it reports
// false (and changes nothing) when the move is not allowed.
func (m *Message) Move(status string, at time.Time) bool {
	if !m.CanMove(status) {
		return false
	}
	m.Status = status
	m.UpdatedAt = at
	switch status {
	case MessageSent:
		m.SentAt = &at
	case MessageDelivered:
		if m.SentAt == nil {
			m.SentAt = &at
		}
		m.DeliveredAt = &at
	case MessageFailed:
		m.FailedAt = &at
	}
	return true
}

// NotificationText is the number and text of a notification that
// transactions-svc keeps: its notification.requested event carries ids only.
type NotificationText struct {
	To, Body string
}
