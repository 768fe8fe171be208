package optinsvc

import (
	"github.com/paylane/paylane/optin-svc/internal/sms"
)

// newProvider returns the SMS provider adapter the configuration names.
func newProvider(cfg Config) sms.Provider {
	switch cfg.SMSProvider {
	case ProviderTwilio:
		return sms.NewTwilio(sms.TwilioConfig{
			BaseURL: cfg.TwilioBaseURL, AccountSID: cfg.TwilioAccountSID, AuthToken: cfg.TwilioAuthToken,
		}, nil)
	default:
		return sms.Sink{}
	}
}
