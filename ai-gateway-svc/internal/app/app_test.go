package app_test

import (
	"testing"

	contacts "github.com/paylane/paylane/contacts-svc/client"

	"github.com/paylane/paylane/ai-gateway-svc/internal/app"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	list := func(scores ...float64) []contacts.Candidate {
		out := make([]contacts.Candidate, len(scores))
		for i, s := range scores {
			out[i] = contacts.Candidate{ContactID: "c", Score: s}
		}
		return out
	}
	for _, c := range []struct {
		name     string
		list     []contacts.Candidate
		narrowed bool
		want     string
	}{
		{"none", nil, false, app.NotFound},
		{"none narrowed", nil, true, app.NotFound},
		{"one strong", list(0.9), false, app.Matched},
		{"at the threshold", list(app.MatchScore), false, app.Matched},
		{"one weak", list(0.4), false, app.Ambiguous},
		{"one strong, weaker ones", list(1, 0.5, 0.3), false, app.Matched},
		{"two strong", list(0.9, 0.8), false, app.Ambiguous},
		{"one weak narrowed", list(0.2), true, app.Matched},
		{"two narrowed", list(1, 1), true, app.Ambiguous},
	} {
		if got := app.Classify(c.list, c.narrowed); got != c.want {
			t.Errorf("%s: Classify = %s, want %s", c.name, got, c.want)
		}
	}
}
