package txn

import (
	"encoding/json"
	"time"
)

// Recipient is who the SMS goes to: copied from the contact when the
// transaction is created, so background sends need no call to contacts-svc.
type Recipient struct {
	FirstName string
	LastName  string
	// Phone is E.164; it never appears in logs or events.
	Phone string
}

// Message is the latest SMS of a transaction, as optin-svc reports it.
type Message struct {
	Status    string
	Channel   string
	SentAt    *time.Time
	UpdatedAt time.Time
}

// Link is the state of an item's signed link. No link was issued while
// ExpiresAt is nil.
type Link struct {
	ExpiresAt *time.Time
	RevokedAt *time.Time
}

// Live reports whether the link may be used at now: issued, not revoked and
// not expired. Whether the item's state lets the page act is another matter.
func (l Link) Live(now time.Time) bool {
	return l.ExpiresAt != nil && l.RevokedAt == nil && now.Before(*l.ExpiresAt)
}

// Destination is the payout destination a recipient chose: its type and the
// last four digits of the account or card number, never the whole number.
type Destination struct {
	Type  string
	Last4 string
}

// Destination types of the payout page.
const (
	BankAccount = "bank_account"
	DebitCard   = "debit_card"
	// StripeAccount is a recipient's Stripe connected account; its Last4 is
	// the account id's last four characters.
	StripeAccount = "stripe_account"
)

// Payment methods of a paid receivable.
const (
	MethodCard      = "card"
	MethodOutOfBand = "out_of_band"
)

// Campaign progress of a transaction: how many follow-up steps were sent and
// when the last SMS went out (delay_hours counts from it).
type Progress struct {
	StepsSent int
	LastSMSAt *time.Time
}

// Item is a receivable or a payable together with its parent transaction.
// Fields of the other direction stay zero.
type Item struct {
	ID            string
	TenantID      string
	TransactionID string
	Direction     Direction
	ContactID     string
	Recipient     Recipient
	ExternalID    *string
	Amount        int64
	Currency      string
	Description   *string
	DueDate       *string
	Status        State
	SendAt        *time.Time
	LinkTTLHours  int
	Link          Link
	CampaignID    *string
	Progress      Progress
	CustomFields  map[string]json.RawMessage
	FailureReason *string
	// Reference is the out-of-band reference of mark-paid or mark-disbursed.
	Reference     *string
	LatestMessage *Message
	// Rail is the provider that moves the item's money (sandbox, stripe),
	// fixed at creation; RailID names the tenant's provider configuration
	// (nil on the sandbox rail); ProviderReference is the provider's id of
	// the payment or transfer.
	Rail              string
	RailID            *string
	ProviderReference *string

	// Receivables only.
	PayerVerifiedAt *time.Time
	PaidAt          *time.Time
	PaymentMethod   *string
	Declines        int
	CardBrand       *string
	CardLast4       *string

	// Payables only.
	Destination          *Destination
	IdentityVerifiedAt   *time.Time
	DisbursedAt          *time.Time
	DisbursementAttempts int

	CreatedAt time.Time
	UpdatedAt time.Time
	DeletedAt *time.Time
}

// MaxDeclines is the number of declined cards after which a receivable's
// link is revoked (a resend issues a new one).
const MaxDeclines = 5

// LinkActive reports whether the item's link is live at now and its state
// is one the hosted page acts in.
func (it Item) LinkActive(now time.Time) bool {
	if !it.Link.Live(now) {
		return false
	}
	if it.Direction == Payable {
		return it.Status == Pending || it.Status == DestinationSelected
	}
	return it.Status == Pending
}
