package events

import "strings"

// Catalog returns every public event type: the types webhook endpoints may
// subscribe to and receive (contract section 9). Internal types (token.*,
// tenant.*, notification.*) are not in it.
func Catalog() []string {
	return []string{
		TypeContactCreated, TypeContactUpdated, TypeContactDeleted, TypeContactRestored,
		TypeReceivableCreated, TypeReceivableUpdated, TypeReceivablePaid, TypeReceivablePaymentFailed,
		TypeReceivableCancelled, TypeReceivableExpired,
		TypePayableCreated, TypePayableUpdated, TypePayableDestinationSelected, TypePayableDisbursed,
		TypePayableDisbursementFailed, TypePayableCancelled, TypePayableExpired,
		TypeTransactionCampaignAssigned,
		TypeContactBatchCompleted, TypeReceivableBatchCompleted, TypePayableBatchCompleted,
		TypeMessageSent, TypeMessageDelivered, TypeMessageFailed, TypeMessageSuppressed,
		TypeOptInConfirmed, TypeOptInRevoked,
		TypeSuppressionCreated, TypeSuppressionDeleted,
	}
}

// IsPublic reports whether eventType is in the public catalog.
func IsPublic(eventType string) bool {
	for _, t := range Catalog() {
		if t == eventType {
			return true
		}
	}
	return false
}

// Matches reports whether a subscription pattern matches an event type: the
// exact type, "<domain>.*" for every type whose first segment is <domain>, or
// "*" for everything.
func Matches(pattern, eventType string) bool {
	switch {
	case pattern == "*":
		return true
	case strings.HasSuffix(pattern, ".*"):
		domain := strings.TrimSuffix(pattern, ".*")
		first, _, _ := strings.Cut(eventType, ".")
		return domain != "" && !strings.Contains(domain, ".") && first == domain
	default:
		return pattern == eventType
	}
}
