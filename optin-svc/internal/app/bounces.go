package app

import (
	"context"

	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/optin-svc/internal/optin"
	"github.com/paylane/paylane/optin-svc/internal/sms"
	"github.com/paylane/paylane/optin-svc/internal/store"
)

// afterPermanentFailure suppresses the number when the provider's refusal
// says no message can ever reach it: the recipient opted out at the
// carrier (their STOP), or the number cannot receive SMS (a bounce).
func (a *App) afterPermanentFailure(ctx context.Context, tx *store.Tx, m optin.Message, perr *sms.Error) error {
	var reason, source string
	switch {
	case sms.IsOptedOut(perr.Code):
		reason, source = optin.ReasonManual, optin.SourceInboundStop
	case sms.IsUnreachable(perr.Code):
		reason, source = optin.ReasonBounce, optin.SourceBounce
	default:
		return nil
	}
	_, _, err := a.suppress(ctx, tx, optin.Suppression{
		ID: ids.New(), Phone: m.To, Reason: reason, Channel: optin.ChannelSMS, Source: source, CreatedAt: m.UpdatedAt,
	}, "")
	return err
}
