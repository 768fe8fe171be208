package phone_test

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/paylane/paylane/libs/phone"
)

var e164 = regexp.MustCompile(`^\+[1-9][0-9]{1,14}$`)

// FuzzNormalize: Normalize never panics; an error wraps ErrUnparseable or
// ErrInvalid and never repeats the input; an accepted number is E.164
// (no NUL, digits only after the +) and normalises to itself.
func FuzzNormalize(f *testing.F) {
	for _, seed := range []struct{ in, region string }{
		{"+14155550123", "US"}, {"(415) 555-0123", "US"}, {"020 7946 0958", "GB"}, {"0044 20 7946 0958", "US"},
		{"+1415555\x000123", "US"}, {"+1415\xff5550123", "US"}, {"", ""}, {"+", "US"}, {"123", "ZZ"},
		{"+1 (415) 555-0123 ext. 7", "us"}, {strings.Repeat("9", 300), "US"}, {"+999999999999999", ""},
	} {
		f.Add(seed.in, seed.region)
	}
	f.Fuzz(func(t *testing.T, in, region string) {
		out, err := phone.Normalize(in, region)
		if err != nil {
			if !errors.Is(err, phone.ErrUnparseable) && !errors.Is(err, phone.ErrInvalid) {
				t.Fatalf("Normalize(%q, %q) error %v wraps neither error", in, region, err)
			}
			if digits := strings.TrimSpace(in); len(digits) >= 7 && strings.Contains(err.Error(), digits) {
				t.Fatalf("error %q repeats the input", err)
			}
			return
		}
		if !e164.MatchString(out) {
			t.Fatalf("Normalize(%q, %q) = %q, not E.164", in, region, out)
		}
		again, err := phone.Normalize(out, region)
		if err != nil || again != out {
			t.Fatalf("Normalize(%q) = %q, %v; want itself", out, again, err)
		}
		if l4 := phone.Last4(out); len(l4) != 4 || !strings.HasSuffix(out, l4) {
			t.Fatalf("Last4(%q) = %q", out, l4)
		}
	})
}
