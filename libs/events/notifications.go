package events

import "time"

// Internal event types exchanged between transactions-svc and optin-svc.
const (
	// TypeNotificationRequested asks the messaging service to send an SMS.
	// transactions-svc publishes it; optin-svc turns it into a message.
	TypeNotificationRequested = "notification.requested"
)

// Public message event types (optin-svc publishes them on TopicMessages);
// transactions-svc consumes them to keep a transaction's latest_message.
const (
	TypeMessageSent       = "message.sent"
	TypeMessageDelivered  = "message.delivered"
	TypeMessageFailed     = "message.failed"
	TypeMessageSuppressed = "message.suppressed"
)

// TypeMessageQueued is internal (not in the public catalog, so no webhook
// endpoint receives it): a message was accepted and waits for its send. It
// lets transactions-svc show a latest_message of status queued while the
// provider is retried, before message.sent.
const TypeMessageQueued = "message.queued"

// Notification kinds.
const (
	KindPaymentLink  = "payment_link"       // receivable link (first send or resend)
	KindPayoutLink   = "payout_link"        // payable destination-selection link
	KindFollowUp     = "campaign_follow_up" // a campaign step
	KindOptInConfirm = "opt_in_confirmation"
	KindHelp         = "help"
)

// NotificationRequested is the data of notification.requested. It carries
// ids only: every consumer of the topic reads it, so it never holds the
// recipient's number nor the text (which may carry a signed payment or
// payout link). The messaging service fetches both from transactions-svc
// (transactions-svc/client Notification) by NotificationID, within the
// envelope's tenant, when it records the message.
type NotificationRequested struct {
	// NotificationID identifies the request; the messaging service sends at
	// most one SMS per id, so a redelivered event sends nothing twice.
	NotificationID string `json:"notification_id"`
	Kind           string `json:"kind"`
	TransactionID  string `json:"transaction_id,omitempty"`
	// Direction is receivable or payable for transaction notifications.
	Direction string `json:"direction,omitempty"`
	ContactID string `json:"contact_id,omitempty"`
	// To and Body are what producers before the id-only event sent (the
	// E.164 number and the text). Producers leave them empty; the messaging
	// service still honours them for such events left on the topic.
	To   string `json:"to,omitempty"`
	Body string `json:"body,omitempty"`
}

// Message is the data of the message.* events: the state of one SMS.
type Message struct {
	ID             string     `json:"id"`
	NotificationID string     `json:"notification_id,omitempty"`
	TransactionID  string     `json:"transaction_id,omitempty"`
	ContactID      string     `json:"contact_id,omitempty"`
	Channel        string     `json:"channel"` // sms
	Status         string     `json:"status"`  // queued, sent, delivered, failed, suppressed
	ToLast4        string     `json:"to_last4"`
	SentAt         *time.Time `json:"sent_at"`
	FailureReason  string     `json:"failure_reason,omitempty"`
	CreatedAt      time.Time  `json:"created_at"`
	UpdatedAt      time.Time  `json:"updated_at"`
}
