package sms

// Twilio error codes that say a number must not be written to again.
// https://www.twilio.com/docs/api/errors
const (
	// codeUnsubscribed: the recipient replied STOP (21610).
	codeUnsubscribed = "21610"
	// codeUnknownDestination: the number is not in service (30005).
	codeUnknownDestination = "30005"
	// codeLandline: the number cannot receive SMS (30006).
	codeLandline = "30006"
	// codeNotMobile: the To number is not a mobile number (21614).
	codeNotMobile = "21614"
)

// IsOptedOut reports whether a provider error code means the recipient
// opted out of the sender's messages at the carrier.
func IsOptedOut(code string) bool { return code == codeUnsubscribed }

// IsUnreachable reports whether a provider error code means the number can
// never receive SMS.
func IsUnreachable(code string) bool {
	return code == codeUnknownDestination || code == codeLandline || code == codeNotMobile
}
