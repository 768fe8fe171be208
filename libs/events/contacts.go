package events

// Public contact event types (contacts-svc publishes them on TopicContacts).
// Every delete and restore also emits TypeContactUpdated.
const (
	TypeContactCreated  = "contact.created"
	TypeContactUpdated  = "contact.updated"
	TypeContactDeleted  = "contact.deleted"
	TypeContactRestored = "contact.restored"
)

// Public batch event types (batch-svc publishes them on TopicBatches).
const (
	TypeContactBatchCompleted    = "contact.batch.completed"
	TypeReceivableBatchCompleted = "receivable.batch.completed"
	TypePayableBatchCompleted    = "payable.batch.completed"
)
