package store

// The statements the plan test explains.
const (
	LiveByExternalIDsSQL = liveByExternalIDsSQL
	LivePhoneOwnersSQL   = livePhoneOwnersSQL
)
