package events

import "strings"

// Catalog returns every public event type: the types webhook endpoints may
// subscribe to and receive (contract section 9). Internal types (token.*,
// tenant.*, notification.*) are not in it.
func Catalog() []string {
	return []string{
		"contact.created", "contact.updated", "contact.deleted", "contact.restored",
		"receivable.created", "receivable.updated", "receivable.paid", "receivable.payment_failed",
		"receivable.cancelled", "receivable.expired",
		"payable.created", "payable.updated", "payable.destination_selected", "payable.disbursed",
		"payable.disbursement_failed", "payable.cancelled", "payable.expired",
		"transaction.campaign_assigned",
		"contact.batch.completed", "receivable.batch.completed", "payable.batch.completed",
		"message.sent", "message.delivered", "message.failed", "message.suppressed",
		"opt_in.confirmed", "opt_in.revoked",
		"suppression.created", "suppression.deleted",
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
