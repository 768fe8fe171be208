package listtotal_test

import (
	"slices"
	"testing"

	"github.com/paylane/paylane/libs/listtotal"
)

// TestWhereNumbersParametersInOrder: each condition gets the numbers of
// its own parameters, in the order added; no condition is no WHERE.
func TestWhereNumbersParametersInOrder(t *testing.T) {
	t.Parallel()
	var none listtotal.Where
	if none.SQL() != "" || len(none.Args()) != 0 || none.Next() != 1 {
		t.Errorf("empty Where: %q %v next %d", none.SQL(), none.Args(), none.Next())
	}
	var w listtotal.Where
	w.And("c.deleted_at IS NULL")
	w.And("c.status = $%d", "pending")
	w.And("c.created_at BETWEEN $%d AND $%d", 1, 2)
	if got, want := w.SQL(), " WHERE c.deleted_at IS NULL AND c.status = $1 AND c.created_at BETWEEN $2 AND $3"; got != want {
		t.Errorf("SQL = %q, want %q", got, want)
	}
	if got := w.Args(); !slices.Equal(got, []any{"pending", 1, 2}) || w.Next() != 4 {
		t.Errorf("Args = %v, Next = %d", got, w.Next())
	}
}
