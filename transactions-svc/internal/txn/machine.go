package txn

import (
	"fmt"

	"github.com/paylane/paylane/libs/apierr"
)

// Action is what moves a receivable or payable: an API action, a customer on
// a hosted page, the payment rail's answer, or the scheduler.
type Action string

// Actions of both machines.
const (
	Confirm          Action = "confirm"           // AI-gateway confirm, send now
	ConfirmScheduled Action = "confirm_scheduled" // AI-gateway confirm with a future send_at
	SendDue          Action = "send"              // send_at reached
	Cancel           Action = "cancel"
	Expire           Action = "expire"       // the expire action
	LinkExpired      Action = "link_expired" // the link's TTL passed
	DraftTimeout     Action = "draft_timeout"
	Resend           Action = "resend_notification"
	RevokeLink       Action = "revoke_link"
	Update           Action = "update" // PUT
	Delete           Action = "delete" // DELETE (soft)
)

// Actions of receivables.
const (
	SubmitCard   Action = "submit_card"
	RailPaid     Action = "rail_paid"
	RailDeclined Action = "rail_declined"
	RailError    Action = "rail_error"
	RetryPayment Action = "retry_payment"
	MarkPaid     Action = "mark_paid"
	VerifyPayer  Action = "verify_payer"
)

// Actions of payables.
const (
	SelectDestination Action = "select_destination"
	VerifyIdentity    Action = "verify_identity" // the identity check passes
	IdentityFailed    Action = "identity_failed" // the identity check fails
	Disburse          Action = "disburse"        // verified: the disbursement starts
	RailDisbursed     Action = "rail_disbursed"
	RailFailed        Action = "rail_failed"
	RetryDisbursement Action = "retry_disbursement"
	MarkDisbursed     Action = "mark_disbursed"
)

// Same as a target means the action keeps the state it finds (PUT).
const Same State = ""

// Transition is one row of a state machine: in state From, Action moves to To.
type Transition struct {
	From   State
	Action Action
	To     State
}

// ErrAlreadyPaid refuses to cancel a receivable the customer has paid
// (409 already_paid, not an invalid transition).
var ErrAlreadyPaid = apierr.NewSentinel("txn: the receivable is already paid",
	apierr.Conflict(apierr.CodeAlreadyPaid, "The receivable is already paid and cannot be cancelled."))

// TransitionError is a move the state machine refuses. Its message names the
// pair as "<from> -> <to>".
type TransitionError struct {
	From, To State
}

// Error implements the error interface.
func (e *TransitionError) Error() string { return fmt.Sprintf("%s -> %s", e.From, e.To) }

// APIError answers 422 invalid_transition naming both states.
func (e *TransitionError) APIError() *apierr.Error {
	return apierr.InvalidTransition(string(e.From), string(e.To))
}

type edge struct {
	from   State
	action Action
}

// Machine is a state machine built from its table. The zero value refuses
// everything.
type Machine struct {
	rows     []Transition
	next     map[edge]State
	refusals map[edge]error
}

// newMachine indexes rows. refusals are (state, action) pairs refused with
// an error of their own instead of a TransitionError.
func newMachine(rows []Transition, refusals map[edge]error) Machine {
	m := Machine{rows: rows, next: make(map[edge]State, len(rows)), refusals: refusals}
	for _, r := range rows {
		m.next[edge{r.From, r.Action}] = r.To
	}
	return m
}

// Rows returns a copy of the machine's table.
func (m Machine) Rows() []Transition { return append([]Transition(nil), m.rows...) }

// Next returns the state action moves from to, or the error refusing it: a
// *TransitionError naming from and the action's usual target, or a refusal
// of the table's own (ErrAlreadyPaid).
func (m Machine) Next(from State, action Action) (State, error) {
	if to, ok := m.next[edge{from, action}]; ok {
		if to == Same {
			return from, nil
		}
		return to, nil
	}
	if err, ok := m.refusals[edge{from, action}]; ok {
		return from, err
	}
	to := Target(action)
	if to == Same {
		to = from
	}
	return from, &TransitionError{From: from, To: to}
}

// Allows reports whether action may run in state from.
func (m Machine) Allows(from State, action Action) bool {
	_, ok := m.next[edge{from, action}]
	return ok
}

// Target is the state an action moves to when it succeeds, the "to" of its
// refusal message: Same for update (the message names the state found),
// Deleted for delete. Actions that keep pending (resend, revoke-link,
// verify-payer) name pending.
func Target(a Action) State {
	switch a {
	case Confirm, SendDue, Resend, RevokeLink, RailDeclined, VerifyPayer:
		return Pending
	case ConfirmScheduled:
		return Scheduled
	case Cancel:
		return Cancelled
	case Expire, LinkExpired, DraftTimeout:
		return Expired
	case Delete:
		return Deleted
	case SubmitCard, RetryPayment, Disburse, RetryDisbursement:
		return Processing
	case RailPaid, MarkPaid:
		return Paid
	case RailError, RailFailed:
		return Failed
	case SelectDestination, IdentityFailed:
		return DestinationSelected
	case VerifyIdentity:
		return Verified
	case RailDisbursed, MarkDisbursed:
		return Disbursed
	}
	return Same
}
