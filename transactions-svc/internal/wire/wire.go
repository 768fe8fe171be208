// Package wire is the JSON shape of transactions-svc's resources, shared by
// the HTTP API and the events (libs/events holds the receivable and payable
// types), so a resource reads the same in a response and in an event.
package wire

import (
	"encoding/json"

	"github.com/paylane/paylane/libs/apitime"
	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/transactions-svc/internal/campaign"
	"github.com/paylane/paylane/transactions-svc/internal/fielddef"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

func custom(m map[string]json.RawMessage) map[string]json.RawMessage {
	if m == nil {
		return map[string]json.RawMessage{}
	}
	return m
}

func latest(m *txn.Message) *events.LatestMessage {
	if m == nil {
		return nil
	}
	return &events.LatestMessage{Status: m.Status, Channel: m.Channel, SentAt: apitime.FormatPtr(m.SentAt)}
}

// Receivable renders a receivable; linkURL is its live payment link or nil.
func Receivable(it txn.Item, linkURL *string) events.Receivable {
	return events.Receivable{
		ID: it.ID, TransactionID: it.TransactionID, ContactID: it.ContactID, ExternalID: it.ExternalID,
		Amount: it.Amount, Currency: it.Currency, Description: it.Description, DueDate: it.DueDate,
		Status: string(it.Status), PaymentLinkURL: linkURL, LinkExpiresAt: apitime.FormatPtr(it.Link.ExpiresAt),
		SendAt: apitime.FormatPtr(it.SendAt), CampaignID: it.CampaignID, CustomFields: custom(it.CustomFields),
		PayerVerifiedAt: apitime.FormatPtr(it.PayerVerifiedAt), PaidAt: apitime.FormatPtr(it.PaidAt), PaymentMethod: it.PaymentMethod,
		FailureReason: it.FailureReason, LatestMessage: latest(it.LatestMessage),
		Rail: railOf(it), ProviderReference: it.ProviderReference,
		CreatedAt: apitime.Format(it.CreatedAt), UpdatedAt: apitime.Format(it.UpdatedAt),
	}
}

// railOf is the item's rail; an item read before it had one is on the
// sandbox rail.
func railOf(it txn.Item) string {
	if it.Rail == "" {
		return "sandbox"
	}
	return it.Rail
}

// Payable renders a payable. It never carries the link.
func Payable(it txn.Item) events.Payable {
	var dest *events.Destination
	if it.Destination != nil {
		dest = &events.Destination{Type: it.Destination.Type, Last4: it.Destination.Last4}
	}
	return events.Payable{
		ID: it.ID, TransactionID: it.TransactionID, ContactID: it.ContactID, ExternalID: it.ExternalID,
		Amount: it.Amount, Currency: it.Currency, Description: it.Description, DueDate: it.DueDate,
		Status: string(it.Status), LinkExpiresAt: apitime.FormatPtr(it.Link.ExpiresAt),
		SendAt: apitime.FormatPtr(it.SendAt), CampaignID: it.CampaignID, CustomFields: custom(it.CustomFields),
		Destination: dest, IdentityVerifiedAt: apitime.FormatPtr(it.IdentityVerifiedAt), DisbursedAt: apitime.FormatPtr(it.DisbursedAt),
		FailureReason: it.FailureReason, LatestMessage: latest(it.LatestMessage),
		Rail: railOf(it), ProviderReference: it.ProviderReference,
		CreatedAt: apitime.Format(it.CreatedAt), UpdatedAt: apitime.Format(it.UpdatedAt),
	}
}

// Transaction is the parent record as the campaign-assignment answer shows
// it.
type Transaction struct {
	ID         string  `json:"id"`
	Direction  string  `json:"direction"`
	ContactID  string  `json:"contact_id"`
	CampaignID *string `json:"campaign_id"`
	Status     string  `json:"status"`
	Rail       string  `json:"rail"`
	// ProviderReference is the provider's id of the payment or transfer.
	ProviderReference *string `json:"provider_reference"`
	ReceivableID      *string `json:"receivable_id,omitempty"`
	PayableID         *string `json:"payable_id,omitempty"`
	CreatedAt         string  `json:"created_at"`
	UpdatedAt         string  `json:"updated_at"`
}

// NewTransaction renders the parent of it.
func NewTransaction(it txn.Item) Transaction {
	t := Transaction{ID: it.TransactionID, Direction: string(it.Direction), ContactID: it.ContactID,
		CampaignID: it.CampaignID, Status: string(it.Status), Rail: railOf(it), ProviderReference: it.ProviderReference, CreatedAt: apitime.Format(it.CreatedAt), UpdatedAt: apitime.Format(it.UpdatedAt)}
	id := it.ID
	if it.Direction == txn.Payable {
		t.PayableID = &id
	} else {
		t.ReceivableID = &id
	}
	return t
}

// Definition is a transaction field definition; options is null for types
// other than enum.
type Definition struct {
	ID        string   `json:"id"`
	Key       string   `json:"key"`
	Label     string   `json:"label"`
	Type      string   `json:"type"`
	Options   []string `json:"options"`
	Required  bool     `json:"required"`
	CreatedAt string   `json:"created_at"`
	UpdatedAt string   `json:"updated_at"`
}

// NewDefinition renders d.
func NewDefinition(d fielddef.Definition) Definition {
	return Definition{ID: d.ID, Key: d.Key, Label: d.Label, Type: string(d.Type), Options: d.Options,
		Required: d.Required, CreatedAt: apitime.Format(d.CreatedAt), UpdatedAt: apitime.Format(d.UpdatedAt)}
}

// Step is a campaign step.
type Step struct {
	DelayHours int    `json:"delay_hours"`
	Message    string `json:"message"`
}

// Rule is a campaign rule.
type Rule struct {
	Field string          `json:"field"`
	Op    string          `json:"op"`
	Value json.RawMessage `json:"value"`
}

// Campaign is a campaign as the API shows it.
type Campaign struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Direction string `json:"direction"`
	Status    string `json:"status"`
	IsActive  bool   `json:"is_active"`
	Priority  int    `json:"priority"`
	Steps     []Step `json:"steps"`
	Rules     []Rule `json:"rules"`
	CreatedAt string `json:"created_at"`
	UpdatedAt string `json:"updated_at"`
}

// NewCampaign renders c.
func NewCampaign(c campaign.Campaign) Campaign {
	out := Campaign{ID: c.ID, Name: c.Name, Direction: string(c.Direction), Status: string(c.Status),
		IsActive: c.IsActive, Priority: c.Priority, Steps: make([]Step, len(c.Steps)), Rules: make([]Rule, len(c.Rules)),
		CreatedAt: apitime.Format(c.CreatedAt), UpdatedAt: apitime.Format(c.UpdatedAt)}
	for i, s := range c.Steps {
		out.Steps[i] = Step{DelayHours: s.DelayHours, Message: s.Message}
	}
	for i, r := range c.Rules {
		out.Rules[i] = Rule{Field: r.Field, Op: r.Op, Value: r.Value}
	}
	return out
}
