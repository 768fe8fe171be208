package app

import (
	"context"
	"strings"
	"time"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/optin-svc/internal/optin"
	"github.com/paylane/paylane/optin-svc/internal/store"
)

// ConsentQuery are the filters of GET /opt-ins, as sent.
type ConsentQuery struct {
	Status, OptInCodeID, ContactID, Since string
}

// ListConsents returns one page of the tenant's consents, newest
// consented_at first, and the total.
func (a *App) ListConsents(ctx context.Context, scope Scope, q ConsentQuery, page Page) ([]optin.Consent, listtotal.Total, error) {
	f := store.ConsentFilter{Status: q.Status, OptInCodeID: strings.TrimSpace(q.OptInCodeID),
		ContactID: strings.TrimSpace(q.ContactID)}
	problems := map[string][]string{}
	if f.Status != "" && !optin.ValidConsentStatus(f.Status) {
		problems["status"] = []string{"The selected status is invalid (confirmed, pending, revoked)."}
	}
	if q.Since != "" {
		since, err := time.Parse(time.RFC3339Nano, q.Since)
		if err != nil {
			problems["since"] = []string{"The since field must be an ISO 8601 timestamp such as 2026-01-31T00:00:00Z."}
		}
		f.Since = &since
	}
	if len(problems) > 0 {
		return nil, listtotal.Total{}, &ValidationError{Fields: problems}
	}
	var (
		list  []optin.Consent
		total listtotal.Total
	)
	err := a.store.Read(ctx, scope.TenantID, func(tx *store.Tx) error {
		var err error
		list, total, err = tx.ListConsents(ctx, f, page.Limit, page.Offset)
		return err
	})
	return list, total, err
}

// ConsentEvent renders a consent as the data of opt_in.* events.
func ConsentEvent(c optin.Consent) events.OptIn {
	var code *string
	if c.OptInCodeID != "" {
		id := c.OptInCodeID
		code = &id
	}
	return events.OptIn{
		ID: c.ID, ContactID: c.ContactID, OptInCodeID: code, Status: c.Status, Channel: c.Channel,
		ConsentedAt: c.ConsentedAt, ConfirmedAt: c.ConfirmedAt, RevokedAt: c.RevokedAt, CreatedAt: c.CreatedAt,
	}
}
