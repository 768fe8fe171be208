// Package txn is the transactions domain: a transaction is the parent of one
// receivable (money collected from a contact) or one payable (money paid out
// to a contact). The package holds their fields, the rules of their input,
// and the two state machines as tables (contract section 6). It knows
// neither HTTP nor SQL.
package txn
