package events

import "encoding/json"

// Event types transactions-svc publishes on TopicTransactions (all public:
// contract section 9). Every state change also emits <domain>.updated.
const (
	TypeReceivableCreated       = "receivable.created"
	TypeReceivableUpdated       = "receivable.updated"
	TypeReceivablePaid          = "receivable.paid"
	TypeReceivablePaymentFailed = "receivable.payment_failed"
	TypeReceivableCancelled     = "receivable.cancelled"
	TypeReceivableExpired       = "receivable.expired"

	TypePayableCreated             = "payable.created"
	TypePayableUpdated             = "payable.updated"
	TypePayableDestinationSelected = "payable.destination_selected"
	TypePayableDisbursed           = "payable.disbursed"
	TypePayableDisbursementFailed  = "payable.disbursement_failed"
	TypePayableCancelled           = "payable.cancelled"
	TypePayableExpired             = "payable.expired"

	TypeTransactionCampaignAssigned = "transaction.campaign_assigned"
)

// LatestMessage is the latest SMS of a transaction: {status, channel,
// sent_at}.
type LatestMessage struct {
	Status  string  `json:"status"`
	Channel string  `json:"channel"`
	SentAt  *string `json:"sent_at"`
}

// Receivable is a receivable as the API shows it, and the data of the
// receivable.* events. Timestamps are RFC 3339 UTC with milliseconds;
// PaymentLinkURL is set only while the link is live.
type Receivable struct {
	ID              string                     `json:"id"`
	TransactionID   string                     `json:"transaction_id"`
	ContactID       string                     `json:"contact_id"`
	ExternalID      *string                    `json:"external_id"`
	Amount          int64                      `json:"amount"`
	Currency        string                     `json:"currency"`
	Description     *string                    `json:"description"`
	DueDate         *string                    `json:"due_date"`
	Status          string                     `json:"status"`
	PaymentLinkURL  *string                    `json:"payment_link_url"`
	LinkExpiresAt   *string                    `json:"link_expires_at"`
	SendAt          *string                    `json:"send_at"`
	CampaignID      *string                    `json:"campaign_id"`
	CustomFields    map[string]json.RawMessage `json:"custom_fields"`
	PayerVerifiedAt *string                    `json:"payer_verified_at"`
	PaidAt          *string                    `json:"paid_at"`
	PaymentMethod   *string                    `json:"payment_method"`
	FailureReason   *string                    `json:"failure_reason"`
	LatestMessage   *LatestMessage             `json:"latest_message"`
	// Rail is the payment rail (sandbox or stripe); ProviderReference the
	// provider's id of the payment, or null.
	Rail              string  `json:"rail"`
	ProviderReference *string `json:"provider_reference"`
	CreatedAt         string  `json:"created_at"`
	UpdatedAt         string  `json:"updated_at"`
}

// Destination is a payout destination: its type (bank_account, debit_card,
// or stripe_account: a Stripe connected account) and the last four digits
// of its number (of the account id for stripe_account).
type Destination struct {
	Type  string `json:"type"`
	Last4 string `json:"last4"`
}

// Payable is a payable as the API shows it, and the data of the payable.*
// events. It has no link field: a payout link lets its holder direct money,
// so it travels only by SMS to the contact.
type Payable struct {
	ID                 string                     `json:"id"`
	TransactionID      string                     `json:"transaction_id"`
	ContactID          string                     `json:"contact_id"`
	ExternalID         *string                    `json:"external_id"`
	Amount             int64                      `json:"amount"`
	Currency           string                     `json:"currency"`
	Description        *string                    `json:"description"`
	DueDate            *string                    `json:"due_date"`
	Status             string                     `json:"status"`
	LinkExpiresAt      *string                    `json:"link_expires_at"`
	SendAt             *string                    `json:"send_at"`
	CampaignID         *string                    `json:"campaign_id"`
	CustomFields       map[string]json.RawMessage `json:"custom_fields"`
	Destination        *Destination               `json:"destination"`
	IdentityVerifiedAt *string                    `json:"identity_verified_at"`
	DisbursedAt        *string                    `json:"disbursed_at"`
	FailureReason      *string                    `json:"failure_reason"`
	LatestMessage      *LatestMessage             `json:"latest_message"`
	// Rail is the payment rail (sandbox or stripe); ProviderReference the
	// provider's id of the transfer, or null.
	Rail              string  `json:"rail"`
	ProviderReference *string `json:"provider_reference"`
	CreatedAt         string  `json:"created_at"`
	UpdatedAt         string  `json:"updated_at"`
}

// CampaignAssigned is the data of transaction.campaign_assigned.
type CampaignAssigned struct {
	TransactionID      string  `json:"transaction_id"`
	Direction          string  `json:"direction"`
	ReceivableID       string  `json:"receivable_id,omitempty"`
	PayableID          string  `json:"payable_id,omitempty"`
	ContactID          string  `json:"contact_id"`
	CampaignID         string  `json:"campaign_id"`
	PreviousCampaignID *string `json:"previous_campaign_id"`
	// Automatic is true when the campaign's rules chose it at creation.
	Automatic  bool   `json:"automatic"`
	AssignedAt string `json:"assigned_at"`
}
