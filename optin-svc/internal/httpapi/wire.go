package httpapi

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

// suppressionJSON is a suppression entry as the API shows it: the number
// only by its last four digits.
type suppressionJSON struct {
	ID             string  `json:"id"`
	PhoneLast4     string  `json:"phone_last4"`
	ContactPhoneID *string `json:"contact_phone_id"`
	Reason         string  `json:"reason"`
	Channel        string  `json:"channel"`
	Source         string  `json:"source"`
	CreatedAt      string  `json:"created_at"`
}

func newSuppression(s optin.Suppression) suppressionJSON {
	return suppressionJSON{
		ID: s.ID, PhoneLast4: phone.Last4(s.Phone), ContactPhoneID: optional(s.ContactPhoneID),
		Reason: s.Reason, Channel: s.Channel, Source: s.Source, CreatedAt: apitime.Format(s.CreatedAt),
	}
}

func newSuppressions(list []optin.Suppression) []suppressionJSON {
	out := make([]suppressionJSON, len(list))
	for i, s := range list {
		out[i] = newSuppression(s)
	}
	return out
}

// messageJSON is a message as the operator plane shows it (with its text
// and full numbers: the operator plane is never public).
type messageJSON struct {
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

func newMessages(list []optin.Message) []messageJSON {
	out := make([]messageJSON, len(list))
	for i, m := range list {
		out[i] = messageJSON{
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

// codeJSON is an opt-in code as the API shows it.
type codeJSON struct {
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

func (h *Handlers) newCode(c optin.Code) codeJSON {
	return codeJSON{
		ID: c.ID, Name: c.Name, URL: h.app.CodeURL(c), IsLive: c.IsLive, IsDefault: c.IsDefault,
		DoubleOptIn: c.DoubleOptIn, ScanCount: c.ScanCount, OptInCount: c.OptInCount,
		CreatedAt: apitime.Format(c.CreatedAt), UpdatedAt: apitime.Format(c.UpdatedAt),
	}
}

func (h *Handlers) newCodes(list []optin.Code) []codeJSON {
	out := make([]codeJSON, len(list))
	for i, c := range list {
		out[i] = h.newCode(c)
	}
	return out
}

// consentJSON is an opt-in consent as the API shows it.
type consentJSON struct {
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

func newConsent(c optin.Consent) consentJSON {
	return consentJSON{
		ID: c.ID, ContactID: c.ContactID, OptInCodeID: optional(c.OptInCodeID), Status: c.Status, Channel: c.Channel,
		ConsentedAt: apitime.Format(c.ConsentedAt), ConfirmedAt: apitime.FormatPtr(c.ConfirmedAt),
		RevokedAt: apitime.FormatPtr(c.RevokedAt), CreatedAt: apitime.Format(c.CreatedAt),
	}
}

func newConsents(list []optin.Consent) []consentJSON {
	out := make([]consentJSON, len(list))
	for i, c := range list {
		out[i] = newConsent(c)
	}
	return out
}
