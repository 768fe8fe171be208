package store

// JobsSQL is jobsSQL, for the plan test.
const JobsSQL = jobsSQL
