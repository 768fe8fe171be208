package ids_test

import (
	"testing"
	"time"

	"github.com/paylane/paylane/libs/ids"
)

func TestNewIsValidAndUnique(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 1000 {
		id := ids.New()
		if !ids.Valid(id) {
			t.Fatalf("New() = %q is not valid", id)
		}
		if seen[id] {
			t.Fatalf("New() repeated %q", id)
		}
		seen[id] = true
	}
}

func TestNewAtOrdersByTime(t *testing.T) {
	t.Parallel()
	a := ids.NewAt(time.Unix(1_700_000_000, 0))
	b := ids.NewAt(time.Unix(1_700_000_001, 0))
	if a >= b {
		t.Errorf("ids do not sort by time: %s >= %s", a, b)
	}
}

func TestValid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want bool
	}{
		{"01JD3X0Q4Z8W2E5R7T9Y1V3K5M", true},
		{"01jd3x0q4z8w2e5r7t9y1v3k5m", false}, // not canonical
		{"01JD3X0Q4Z8W2E5R7T9Y1V3K5", false},  // 25 characters
		{"01JD3X0Q4Z8W2E5R7T9Y1U3I5O", false}, // I, O, U are not Crockford
		{"81JD3X0Q4Z8W2E5R7T9Y1V3K5M", false}, // overflows 128 bits
		{"", false},
		{"1", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			if got := ids.Valid(tt.in); got != tt.want {
				t.Errorf("Valid(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}
