package httpapi

import (
	"encoding/json"

	"github.com/paylane/paylane/transactions-svc/internal/campaign"
	"github.com/paylane/paylane/transactions-svc/internal/fielddef"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// readOnly are the resource's own fields a client may send back on PUT (a
// resource it read and changed); they are ignored (contract section 2). A
// create body has none of them, so on POST they are unknown fields (422),
// as on POST /contacts.
type readOnly struct {
	ID                 json.RawMessage `json:"id"`
	TransactionID      json.RawMessage `json:"transaction_id"`
	Status             json.RawMessage `json:"status"`
	PaymentLinkURL     json.RawMessage `json:"payment_link_url"`
	LinkExpiresAt      json.RawMessage `json:"link_expires_at"`
	CampaignID         json.RawMessage `json:"campaign_id"`
	PayerVerifiedAt    json.RawMessage `json:"payer_verified_at"`
	PaidAt             json.RawMessage `json:"paid_at"`
	PaymentMethod      json.RawMessage `json:"payment_method"`
	FailureReason      json.RawMessage `json:"failure_reason"`
	LatestMessage      json.RawMessage `json:"latest_message"`
	Destination        json.RawMessage `json:"destination"`
	IdentityVerifiedAt json.RawMessage `json:"identity_verified_at"`
	DisbursedAt        json.RawMessage `json:"disbursed_at"`
	CreatedAt          json.RawMessage `json:"created_at"`
	UpdatedAt          json.RawMessage `json:"updated_at"`
}

// contactRef is contact {external_id}.
type contactRef struct {
	ExternalID *string `json:"external_id"`
}

// itemBody is the create body of receivables and payables (and of their
// batch items and AI-gateway drafts): the writable fields only.
type itemBody struct {
	ContactID    *string                    `json:"contact_id"`
	Contact      *contactRef                `json:"contact"`
	Amount       json.RawMessage            `json:"amount"`
	Currency     *string                    `json:"currency"`
	Description  *string                    `json:"description"`
	DueDate      *string                    `json:"due_date"`
	ExternalID   *string                    `json:"external_id"`
	SendAt       *string                    `json:"send_at"`
	LinkTTLHours *int64                     `json:"link_ttl_hours"`
	CustomFields map[string]json.RawMessage `json:"custom_fields"`
}

// replaceItemBody is the PUT body of receivables and payables.
type replaceItemBody struct {
	itemBody
	readOnly
}

// timestamps are the read-only fields of campaigns and field definitions,
// ignored on PUT.
type timestamps struct {
	ID        json.RawMessage `json:"id"`
	CreatedAt json.RawMessage `json:"created_at"`
	UpdatedAt json.RawMessage `json:"updated_at"`
}

func (b itemBody) input() txn.Input {
	in := txn.Input{ContactID: b.ContactID, Amount: b.Amount, Currency: b.Currency, Description: b.Description,
		DueDate: b.DueDate, ExternalID: b.ExternalID, SendAt: b.SendAt, LinkTTLHours: b.LinkTTLHours, CustomFields: b.CustomFields}
	if b.Contact != nil {
		in.ContactObject, in.ContactExternalID = true, b.Contact.ExternalID
	}
	return in
}

// settleBody is the body of mark-paid and mark-disbursed.
type settleBody struct {
	Reference *string `json:"reference"`
}

// emptyBody is the body of the other actions: {} or nothing.
type emptyBody struct{}

// definitionBody is the create body of field definitions.
type definitionBody struct {
	Key      *string  `json:"key"`
	Label    *string  `json:"label"`
	Type     *string  `json:"type"`
	Options  []string `json:"options"`
	Required *bool    `json:"required"`
}

// replaceDefinitionBody is the PUT body of field definitions.
type replaceDefinitionBody struct {
	definitionBody
	timestamps
}

func (b definitionBody) input() fielddef.Input {
	return fielddef.Input{Key: b.Key, Label: b.Label, Type: b.Type, Options: b.Options, Required: b.Required}
}

type stepBody struct {
	DelayHours *int64  `json:"delay_hours"`
	Message    *string `json:"message"`
}

type ruleBody struct {
	Field *string         `json:"field"`
	Op    *string         `json:"op"`
	Value json.RawMessage `json:"value"`
}

// campaignBody is the create body of campaigns.
type campaignBody struct {
	Name      *string    `json:"name"`
	Direction *string    `json:"direction"`
	Status    *string    `json:"status"`
	IsActive  *bool      `json:"is_active"`
	Priority  *int64     `json:"priority"`
	Steps     []stepBody `json:"steps"`
	Rules     []ruleBody `json:"rules"`
}

// replaceCampaignBody is the PUT body of campaigns.
type replaceCampaignBody struct {
	campaignBody
	timestamps
}

func (b campaignBody) input() campaign.Input {
	in := campaign.Input{Name: b.Name, Direction: b.Direction, Status: b.Status, IsActive: b.IsActive, Priority: b.Priority}
	for _, s := range b.Steps {
		in.Steps = append(in.Steps, campaign.StepInput{DelayHours: s.DelayHours, Message: s.Message})
	}
	for _, r := range b.Rules {
		in.Rules = append(in.Rules, campaign.RuleInput{Field: r.Field, Op: r.Op, Value: r.Value})
	}
	return in
}

// assignmentBody is the body of campaign-assignment.
type assignmentBody struct {
	CampaignID *string `json:"campaign_id"`
	Reassign   *bool   `json:"reassign"`
}
