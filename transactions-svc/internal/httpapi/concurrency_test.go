package httpapi_test

import (
	"net/http"
	"sync"
	"testing"

	"github.com/paylane/paylane/transactions-svc/internal/testenv"
)

// TestConcurrentCancelsAndMarkPaids sends 10 simultaneous cancels and
// mark-paids to one receivable: one wins, the others see its outcome.
func TestConcurrentCancelsAndMarkPaids(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for round := range 3 {
		it := f.create(t, "receivables", "")
		var wg sync.WaitGroup
		results := make([]testenv.Response, 10)
		for i := range results {
			action := "cancel"
			if i%2 == 1 {
				action = "mark-paid"
			}
			wg.Go(func() { results[i] = f.action(t, "receivables", it.ID, action, "") })
		}
		wg.Wait()
		final := f.show(t, "receivables", it.ID).Status
		wins := 0
		for i, r := range results {
			cancel := i%2 == 0
			switch {
			case r.Status == http.StatusOK:
				wins++
				if want := map[bool]string{true: "cancelled", false: "paid"}[cancel]; want != final {
					t.Errorf("round %d: %s won but the state is %s", round, map[bool]string{true: "cancel", false: "mark-paid"}[cancel], final)
				}
			case final == "paid" && cancel:
				expect(t, r, http.StatusConflict, "already_paid")
			case final == "paid":
				transitionError(t, r, "paid", "paid")
			case cancel:
				transitionError(t, r, "cancelled", "cancelled")
			default:
				transitionError(t, r, "cancelled", "paid")
			}
		}
		if wins != 1 {
			t.Fatalf("round %d: %d winners, want 1 (final %s)", round, wins, final)
		}
	}
	counts := map[string]int{}
	for _, e := range f.env.Events(t, f.tenant) {
		counts[e.Type]++
	}
	if counts["receivable.updated"] != 3 || counts["receivable.paid"]+counts["receivable.cancelled"] != 3 {
		t.Errorf("events %v, want one state change per round", counts)
	}
}
