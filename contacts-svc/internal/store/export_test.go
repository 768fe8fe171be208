package store

// LiveByExternalIDsSQL exposes the statement to the plan test.
const LiveByExternalIDsSQL = liveByExternalIDsSQL
