package events

import "strings"

// Topics, one per domain: paylane.<domain>.v1. The message key is the tenant id,
// so one tenant's events stay in order within a topic.
const (
	TopicIdentity     = "paylane.identity.v1"
	TopicContacts     = "paylane.contacts.v1"
	TopicTransactions = "paylane.transactions.v1"
	TopicBatches      = "paylane.batches.v1"
	TopicMessages     = "paylane.messages.v1"
	TopicOptins       = "paylane.optins.v1"
)

// AllTopics returns every topic, for consumers of all events (webhook-svc) and
// for creating topics.
func AllTopics() []string {
	return []string{TopicIdentity, TopicContacts, TopicTransactions, TopicBatches, TopicMessages, TopicOptins}
}

// topicByDomain maps an event type's first segment to its topic.
func topicByDomain(domain string) string {
	switch domain {
	case "token", "tenant":
		return TopicIdentity
	case "contact":
		return TopicContacts
	case "receivable", "payable", "transaction", "notification":
		return TopicTransactions
	case "message":
		return TopicMessages
	case "opt_in", "suppression", "consent":
		return TopicOptins
	}
	return ""
}

// TopicFor returns the topic of an event type: <x>.batch.completed on
// batches (whatever x is), the others by their first segment (token.* and
// tenant.* on identity; contact.*; receivable.*, payable.*, transaction.* and
// notification.* on transactions; message.*; opt_in.*, suppression.* and consent.* on optins). It returns ""
// for a type of no known domain.
func TopicFor(eventType string) string {
	if strings.HasSuffix(eventType, ".batch.completed") {
		return TopicBatches
	}
	domain, _, ok := strings.Cut(eventType, ".")
	if !ok {
		return ""
	}
	return topicByDomain(domain)
}
