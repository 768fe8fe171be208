package httpapi

import (
	"time"

	"github.com/paylane/paylane/libs/phone"
	"github.com/paylane/paylane/optin-svc/internal/optin"
)

// timeLayout is RFC 3339 in UTC with milliseconds (contract section 2).
const timeLayout = "2006-01-02T15:04:05.000Z"

// formatTime renders a timestamp for the API.
func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

// formatTimePtr renders an optional timestamp (null when absent).
func formatTimePtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := formatTime(*t)
	return &s
}

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
		Reason: s.Reason, Channel: s.Channel, Source: s.Source, CreatedAt: formatTime(s.CreatedAt),
	}
}

func newSuppressions(list []optin.Suppression) []suppressionJSON {
	out := make([]suppressionJSON, len(list))
	for i, s := range list {
		out[i] = newSuppression(s)
	}
	return out
}
