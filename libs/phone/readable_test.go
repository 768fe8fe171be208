package phone_test

import (
	"testing"

	"github.com/paylane/paylane/libs/phone"
)

func TestReadable(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"+14155552671", "+1 415-555-2671"},
		{"+442079460958", "+44 20 7946 0958"},
		{"not a number", "not a number"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := phone.Readable(tt.in); got != tt.want {
			t.Errorf("Readable(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
