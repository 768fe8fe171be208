package obs_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/paylane/paylane/libs/obs"
)

// phoneNotation writes the national number nat (10 digits) with country
// code cc in one of the notations a client may send, raw or URL-encoded.
func phoneNotation(cc, nat string, style uint8) string {
	a, b, c := nat[:3], nat[3:6], nat[6:]
	notations := []string{
		"+" + cc + nat,
		nat,
		"(" + a + ") " + b + "-" + c,
		"+" + cc + " " + a + " " + b + " " + c,
		a + "." + b + "." + c,
		a + "-" + b + "-" + c,
		"+" + cc + "-" + a + "-" + b + "-" + c,
		"+" + cc + " (" + a + ") " + b + "-" + c,
		"%28" + a + "%29%20" + b + "-" + c,
		"+" + cc + "+" + a + "+" + b + "+" + c,
		"%2B" + cc + "%20" + a + "%20" + b + "%20" + c,
		"%2B" + cc + nat,
		"00" + cc + " " + a + " " + b + " " + c,
		"tel:+" + cc + "-" + a + "-" + b + "-" + c,
		cc + " " + a + "/" + b + c,
		encodeDigits(nat),
	}
	return notations[int(style)%len(notations)]
}

func encodeDigits(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, "%%%02X", s[i])
	}
	return b.String()
}

// escape reports whether s[i:] starts with a percent escape.
func escape(s string, i int) bool {
	hex := func(c byte) bool { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') }
	return s[i] == '%' && i+2 < len(s) && hex(s[i+1]) && hex(s[i+2])
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// otherDigit reports whether r is a digit of the other scripts
// libphonenumber reads: full-width, Arabic-Indic, Eastern Arabic-Indic or
// Devanagari.
func otherDigit(r rune) bool {
	for _, zero := range []rune{'\uFF10', '\u0660', '\u06F0', '\u0966'} {
		if r >= zero && r <= zero+9 {
			return true
		}
	}
	return false
}

// digitsIn counts the digits s shows, a percent-encoded digit included.
func digitsIn(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		switch {
		case escape(s, i):
			if s[i+1] == '3' && isDigit(s[i+2]) {
				n++
			}
			i += 2
		case isDigit(s[i]):
			n++
		}
	}
	return n
}

// onlyMasked reports where out differs from in other than by a digit (or
// an encoded digit) turned into "*" (or "%2A"), or -1. A digit of another
// script that RedactPhone reads (full-width, Arabic-Indic, Eastern
// Arabic-Indic, Devanagari: as libphonenumber does) turns into a "*" per
// byte.
func onlyMasked(in, out string) int {
	for i := 0; i < len(in); i++ {
		if escape(in, i) {
			a, b := in[i:i+3], out[i:i+3]
			if a != b && !(a[1] == '3' && isDigit(a[2]) && b == "%2A") {
				return i
			}
			i += 2
			continue
		}
		if r, n := utf8.DecodeRuneInString(in[i:]); n > 1 {
			a, b := in[i:i+n], out[i:i+n]
			if a != b && !(otherDigit(r) && b == strings.Repeat("*", n)) {
				return i
			}
			i += n - 1
			continue
		}
		if in[i] != out[i] && !(isDigit(in[i]) && out[i] == '*') {
			return i
		}
	}
	return -1
}

// FuzzRedactPhone plants a phone number, in any notation, between arbitrary
// texts (separated from them by a space, as in a message or a query value)
// and checks that
//   - at most four of its digits are left where it was: the text keeps its
//     length, so the number's place is known;
//   - everything RedactPhone changed is a digit (or an encoded digit) turned
//     into "*" (or "%2A");
//   - redacting twice changes nothing more.
func FuzzRedactPhone(f *testing.F) {
	f.Add("phone", uint64(4153546544), uint8(2), uint8(1), "failed")
	f.Add("/api/v1/contacts?phone=", uint64(4155854147), uint8(9), uint8(1), "&page=2")
	f.Add("2026-11-22", uint64(4153518446), uint8(4), uint8(1), "01:21:17")
	f.Add("a456-", uint64(2079460958), uint8(12), uint8(44), "-b")
	f.Add("1234567890123456", uint64(4155551234), uint8(0), uint8(1), "99999999")
	f.Add("x1", uint64(4155551234), uint8(16), uint8(1), "1x")
	f.Fuzz(func(t *testing.T, pre string, national uint64, style, cc uint8, post string) {
		nat := fmt.Sprintf("%010d", 2000000000+national%8000000000)
		code := fmt.Sprint(1 + int(cc)%99)
		phone := phoneNotation(code, nat, style)
		in := pre + " " + phone + " " + post
		out := obs.RedactPhone(in)
		if len(out) != len(in) {
			t.Fatalf("RedactPhone(%q) = %q: length changed", in, out)
		}
		region := out[len(pre)+1 : len(pre)+1+len(phone)]
		if n := digitsIn(region); n > 4 {
			t.Fatalf("RedactPhone(%q) = %q: %q shows %d digits of the number", in, out, region, n)
		}
		if i := onlyMasked(in, out); i >= 0 {
			t.Fatalf("RedactPhone(%q) = %q: changed at byte %d more than a digit", in, out, i)
		}
		if again := obs.RedactPhone(out); again != out {
			t.Fatalf("RedactPhone is not idempotent: %q → %q → %q", in, out, again)
		}
	})
}
