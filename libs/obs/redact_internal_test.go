package obs

import "testing"

// FuzzMayHoldPhoneMissesNothing: whatever mayHoldPhone lets RedactPhone
// skip, the full reading leaves unchanged.
func FuzzMayHoldPhoneMissesNothing(f *testing.F) {
	for _, s := range []string{
		"01JD3X0Q4Z8W2E5R7T9Y1V3K5N", "4bf92f3577b34da6a3ce929d0e0e4736", "7f1c0a52-3b4e-4c1d-9a7e-1b2c3d4e5f60",
		"+15551234567", "(415) 354-6544", "%2B1%20415%20585%204147", "%34%31%35%35%38%35%34%31%34%37",
		"tel:+1-415-585-4147", "card 4242 4242 4242 4242", "2026-11-22T10:00:00Z", "0.123456789", "x1234567y",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !mayHoldPhone(s) {
			if got := redactUnits(s); got != s {
				t.Errorf("mayHoldPhone(%q) = false, but the full reading masks it: %q", s, got)
			}
		}
	})
}

func TestMayHoldPhone(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"01JD3X0Q4Z8W2E5R7T9Y1V3K5N", false},
		{"/api/v1/contacts/:id", false},
		{"+15551234567", true},
		{"(415) 354-6544", true},
		{"%2B1%20415%20585%204147", true},
		{"%34%31%35%35%38%35%34%31%34%37", true},
		{"415 55 x 12", false},
		{"１２３４５６７", true},
	} {
		if got := mayHoldPhone(tc.s); got != tc.want {
			t.Errorf("mayHoldPhone(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}
