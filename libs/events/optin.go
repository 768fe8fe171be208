package events

import "time"

// Event types of optin-svc's consents and suppression list (topic
// TopicOptins). They are public: webhook endpoints may subscribe to them.
const (
	TypeOptInConfirmed     = "opt_in.confirmed"
	TypeOptInRevoked       = "opt_in.revoked"
	TypeSuppressionCreated = "suppression.created"
	TypeSuppressionDeleted = "suppression.deleted"
)

// TypeConsentRequested is internal (not in the public catalog, so no webhook
// endpoint receives it): a consent was created pending, waiting for its
// double opt-in confirmation. Its data is OptIn. It tells readers that keep
// a contact's opt-in standing (contacts-svc's cache) that the standing
// changed; every other change has its public event.
const TypeConsentRequested = "consent.requested"

// Suppression is the data of suppression.created and suppression.deleted:
// the entry as the API lists it, the number reduced to its last four digits.
type Suppression struct {
	ID             string    `json:"id"`
	ContactPhoneID *string   `json:"contact_phone_id"`
	PhoneLast4     string    `json:"phone_last4"`
	Reason         string    `json:"reason"`  // manual, bounce, complaint
	Channel        string    `json:"channel"` // sms, email
	Source         string    `json:"source"`  // api, inbound_stop, bounce
	CreatedAt      time.Time `json:"created_at"`
}

// OptIn is the data of opt_in.confirmed and opt_in.revoked: the consent as
// the API shows it.
type OptIn struct {
	ID          string     `json:"id"`
	ContactID   string     `json:"contact_id"`
	OptInCodeID *string    `json:"opt_in_code_id"`
	Status      string     `json:"status"`  // pending, confirmed, revoked
	Channel     string     `json:"channel"` // sms
	ConsentedAt time.Time  `json:"consented_at"`
	ConfirmedAt *time.Time `json:"confirmed_at"`
	RevokedAt   *time.Time `json:"revoked_at"`
	CreatedAt   time.Time  `json:"created_at"`
}
