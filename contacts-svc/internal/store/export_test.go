package store

// The statements the plan test explains.
const (
	LiveByExternalIDsSQL = liveByExternalIDsSQL
	LivePhoneOwnersSQL   = livePhoneOwnersSQL
	BatchRowsSQL         = batchRowsSQL
)

// ContactsListSQL is the list's count and page statements of a filter.
func ContactsListSQL(f Filter) (count, page string, args []any) { return contactsListSQL(f) }
