package txn

// Direction says which way money moves: a receivable collects, a payable
// pays out.
type Direction string

// The two directions.
const (
	Receivable Direction = "receivable"
	Payable    Direction = "payable"
)

// Valid reports whether d is a known direction.
func (d Direction) Valid() bool { return d == Receivable || d == Payable }

// Machine returns the state machine of the direction.
func (d Direction) Machine() Machine {
	if d == Payable {
		return PayableMachine()
	}
	return ReceivableMachine()
}

// HasState reports whether s is a state of the direction's items.
func (d Direction) HasState(s State) bool {
	states := ReceivableStates()
	if d == Payable {
		states = PayableStates()
	}
	for _, st := range states {
		if st == s {
			return true
		}
	}
	return false
}
