// Package optin is optin-svc's domain: suppression entries, opt-in codes and
// consents, SMS messages and the keywords of inbound replies. It knows
// neither HTTP nor SQL.
package optin

import (
	"errors"

	"github.com/paylane/paylane/libs/apierr"
)

// Errors of the domain; the store and the use cases wrap them with %w and
// the HTTP layer maps them once.
var (
	// ErrNotFound: no such record in the tenant.
	ErrNotFound = apierr.NewSentinel("not found", apierr.NotFound())
	// ErrUnknownPhone: contacts-svc knows no phone record of that id.
	ErrUnknownPhone = errors.New("unknown contact phone")
	// ErrSuppressionLocked: the entry came from the recipient's STOP and
	// only their START lifts it.
	ErrSuppressionLocked = apierr.NewSentinel("suppression entry is lifted only by the recipient",
		apierr.Field("contact_phone", "The number was suppressed by the recipient's STOP reply; only their START reply lifts it."))
	// ErrDuplicateCode: a generated public code collided (retry with another).
	ErrDuplicateCode = errors.New("opt-in code already exists")
	// ErrNoTenant: an inbound message or landing code matches no tenant.
	ErrNoTenant = errors.New("no tenant for this number or code")
	// ErrUnavailable: a service optin-svc depends on cannot be reached
	// just now; a retry may succeed.
	ErrUnavailable = apierr.NewSentinel("a peer service is unavailable",
		apierr.Unavailable("A part of the platform is briefly unavailable; retry.", 5))
)

// Channels of suppression entries and consents.
const (
	ChannelSMS   = "sms"
	ChannelEmail = "email"
)

// ValidChannel reports whether s names a channel.
func ValidChannel(s string) bool { return s == ChannelSMS || s == ChannelEmail }
