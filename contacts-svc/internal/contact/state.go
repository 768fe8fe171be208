package contact

import (
	"fmt"

	"github.com/paylane/paylane/libs/apierr"
)

// State is a contact's lifecycle state.
type State string

// The states of a contact.
const (
	StateActive  State = "active"
	StateDeleted State = "deleted"
)

// Action moves a contact between states.
type Action string

// The lifecycle actions.
const (
	ActionDelete  Action = "delete"
	ActionRestore Action = "restore"
)

// transition is one row of the state machine.
type transition struct {
	from   State
	action Action
	to     State
}

// transitions is the contact state machine: from, action, to.
func transitions() []transition {
	return []transition{
		{StateActive, ActionDelete, StateDeleted},
		{StateDeleted, ActionRestore, StateActive},
	}
}

// TransitionError is a move the state machine refuses; it names both states
// ("active -> active" for restoring a live contact).
type TransitionError struct {
	From, To State
}

// Error implements the error interface.
func (e *TransitionError) Error() string {
	return fmt.Sprintf("contact: invalid transition %s -> %s", e.From, e.To)
}

// APIError answers 422 invalid_transition naming both states.
func (e *TransitionError) APIError() *apierr.Error {
	return apierr.InvalidTransition(string(e.From), string(e.To))
}

// Transition returns the state action leads to from from, or a
// *TransitionError naming from and the state the action aims at.
func Transition(from State, action Action) (State, error) {
	var target State
	for _, t := range transitions() {
		if t.action != action {
			continue
		}
		if t.from == from {
			return t.to, nil
		}
		target = t.to
	}
	return "", &TransitionError{From: from, To: target}
}
