package listtotal

import (
	"fmt"
	"slices"
	"strings"
)

// Where is the WHERE of a list's statements: a condition for each filter
// that is set, and their parameters, numbered in the order added. A filter
// that is not set is not in the text, so each combination of filters is a
// statement of its own, and the generic plan pgx's statement cache comes
// to is made for it: "status = $1 unless $1 is empty" is planned for both
// cases at once and can use no index on status (for 20,000 consents of a
// tenant, optin-svc's unfiltered list read all of them and sorted them
// instead of walking its list index; its plan test).
type Where struct {
	conds []string
	args  []any
}

// And adds cond, whose %d verbs are the parameter numbers of args in turn
// ("status = $%d", "c.deleted_at IS NULL" without any).
func (w *Where) And(cond string, args ...any) {
	nums := make([]any, len(args))
	for i, a := range args {
		w.args = append(w.args, a)
		nums[i] = len(w.args)
	}
	w.conds = append(w.conds, fmt.Sprintf(cond, nums...))
}

// SQL is " WHERE " and the conditions joined by AND, or "" without any.
func (w Where) SQL() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.conds, " AND ")
}

// Args are the conditions' parameters, in order.
func (w Where) Args() []any { return slices.Clip(w.args) }

// Next is the number of the parameter after the conditions' (a page's
// LIMIT, Window.Page).
func (w Where) Next() int { return len(w.args) + 1 }
