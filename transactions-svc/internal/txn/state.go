package txn

// State is the status of a receivable or payable (and, mirrored, of its
// parent transaction).
type State string

// States of receivables and payables (contract section 6). Payables have
// every state but paid; receivables have neither destination_selected,
// verified nor disbursed.
const (
	Draft               State = "draft"
	Scheduled           State = "scheduled"
	Pending             State = "pending"
	Processing          State = "processing"
	Paid                State = "paid"
	Failed              State = "failed"
	Cancelled           State = "cancelled"
	Expired             State = "expired"
	DestinationSelected State = "destination_selected"
	Verified            State = "verified"
	Disbursed           State = "disbursed"
)

// Deleted is not a stored state: a DELETE keeps the state and sets
// deleted_at. It names the target of a refused delete ("paid -> deleted").
const Deleted State = "deleted"

// ReceivableStates lists the states of receivables in lifecycle order.
func ReceivableStates() []State {
	return []State{Draft, Scheduled, Pending, Processing, Paid, Failed, Cancelled, Expired}
}

// PayableStates lists the states of payables in lifecycle order.
func PayableStates() []State {
	return []State{Draft, Scheduled, Pending, DestinationSelected, Verified, Processing, Disbursed, Failed, Cancelled, Expired}
}
