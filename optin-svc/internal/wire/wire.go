// Package wire is the JSON shape of optin-svc's resources as the API and the
// operator plane show them.
package wire

import (
	"github.com/paylane/paylane/libs/apitime"
	"github.com/paylane/paylane/libs/phone"
	"github.com/paylane/paylane/optin-svc/internal/optin"
)

// optional renders "" as null.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Suppression is a suppression entry as the API shows it: the number
// only by its last four digits.
type Suppression struct {
	ID             string  `json:"id"`
	PhoneLast4     string  `json:"phone_last4"`
	ContactPhoneID *string `json:"contact_phone_id"`
	Reason         string  `json:"reason"`
	Channel        string  `json:"channel"`
	Source         string  `json:"source"`
	CreatedAt      string  `json:"created_at"`
}

// NewSuppression renders s.
func NewSuppression(s optin.Suppression) Suppression {
	return Suppression{
		ID: s.ID, PhoneLast4: phone.Last4(s.Phone), ContactPhoneID: optional(s.ContactPhoneID),
		Reason: s.Reason, Channel: s.Channel, Source: s.Source, CreatedAt: apitime.Format(s.CreatedAt),
	}
}

// NewSuppressions renders list.
func NewSuppressions(list []optin.Suppression) []Suppression {
	out := make([]Suppression, len(list))
	for i, s := range list {
		out[i] = NewSuppression(s)
	}
	return out
}

// Message is a message as the operator plane shows it (with its text
// and full numbers: the operator plane is never public).
type Message struct {
	ID                string  `json:"id"`
	NotificationID    string  `json:"notification_id"`
	Kind              string  `json:"kind"`
	TransactionID     *string `json:"transaction_id"`
	ContactID         *string `json:"contact_id"`
	Channel           string  `json:"channel"`
	To                string  `json:"to"`
	From              *string `json:"from"`
	Body              string  `json:"body"`
	Status            string  `json:"status"`
	Provider          string  `json:"provider"`
	ProviderMessageID *string `json:"provider_message_id"`
	Attempts          int     `json:"attempts"`
	FailureReason     *string `json:"failure_reason"`
	SentAt            *string `json:"sent_at"`
	DeliveredAt       *string `json:"delivered_at"`
	FailedAt          *string `json:"failed_at"`
	CreatedAt         string  `json:"created_at"`
	UpdatedAt         string  `json:"updated_at"`
}

// NewMessages renders list.
func NewMessages(list []optin.Message) []Message {
	out := make([]Message, len(list))
	for i, m := range list {
		out[i] = Message{
			ID: m.ID, NotificationID: m.NotificationID, Kind: m.Kind, TransactionID: optional(m.TransactionID),
			ContactID: optional(m.ContactID), Channel: optin.ChannelSMS, To: m.To, From: optional(m.From),
			Body: m.Body, Status: m.Status, Provider: m.Provider, ProviderMessageID: optional(m.ProviderMessageID),
			Attempts: m.Attempts, FailureReason: optional(m.FailureReason), SentAt: apitime.FormatPtr(m.SentAt),
			DeliveredAt: apitime.FormatPtr(m.DeliveredAt), FailedAt: apitime.FormatPtr(m.FailedAt),
			CreatedAt: apitime.Format(m.CreatedAt), UpdatedAt: apitime.Format(m.UpdatedAt),
		}
	}
	return out
}

// Code is an opt-in code as the API shows it.
type Code struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	URL         string `json:"url"`
	IsLive      bool   `json:"is_live"`
	IsDefault   bool   `json:"is_default"`
	DoubleOptIn bool   `json:"double_opt_in"`
	ScanCount   int64  `json:"scan_count"`
	OptInCount  int64  `json:"opt_in_count"`
	CreatedAt   string `json:"created_at"`
	UpdatedAt   string `json:"updated_at"`
}

// NewCode renders c with url, its landing page's address.
func NewCode(c optin.Code, url string) Code {
	return Code{
		ID: c.ID, Name: c.Name, URL: url, IsLive: c.IsLive, IsDefault: c.IsDefault,
		DoubleOptIn: c.DoubleOptIn, ScanCount: c.ScanCount, OptInCount: c.OptInCount,
		CreatedAt: apitime.Format(c.CreatedAt), UpdatedAt: apitime.Format(c.UpdatedAt),
	}
}

// NewCodes renders list, each code with the address urlOf gives.
func NewCodes(list []optin.Code, urlOf func(optin.Code) string) []Code {
	out := make([]Code, len(list))
	for i, c := range list {
		out[i] = NewCode(c, urlOf(c))
	}
	return out
}

// Consent is an opt-in consent as the API shows it.
type Consent struct {
	ID          string  `json:"id"`
	ContactID   string  `json:"contact_id"`
	OptInCodeID *string `json:"opt_in_code_id"`
	Status      string  `json:"status"`
	Channel     string  `json:"channel"`
	ConsentedAt string  `json:"consented_at"`
	ConfirmedAt *string `json:"confirmed_at"`
	RevokedAt   *string `json:"revoked_at"`
	CreatedAt   string  `json:"created_at"`
}

// NewConsent renders c.
func NewConsent(c optin.Consent) Consent {
	return Consent{
		ID: c.ID, ContactID: c.ContactID, OptInCodeID: optional(c.OptInCodeID), Status: c.Status, Channel: c.Channel,
		ConsentedAt: apitime.Format(c.ConsentedAt), ConfirmedAt: apitime.FormatPtr(c.ConfirmedAt),
		RevokedAt: apitime.FormatPtr(c.RevokedAt), CreatedAt: apitime.Format(c.CreatedAt),
	}
}

// NewConsents renders list.
func NewConsents(list []optin.Consent) []Consent {
	out := make([]Consent, len(list))
	for i, c := range list {
		out[i] = NewConsent(c)
	}
	return out
}

// ContactOptIn is the answer of the internal contact opt-in route.
type ContactOptIn struct {
	Status   string    `json:"status"`
	Consents []Consent `json:"consents"`
}
