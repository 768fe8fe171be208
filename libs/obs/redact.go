package obs

import (
	"net/url"
	"strings"
)

// Phone-number shapes RedactPhone hides: a run of 8 to 15 digits after "+"
// (or its URL encoding "%2B"), or a bare run of 10 to 15 digits (a national
// number). Runs glued to letters, digits, "-", "_" or "." are left alone so
// ULIDs and UUIDs survive.
const (
	minPrefixedDigits = 8
	minBareDigits     = 10
	maxPhoneDigits    = 15
	keepDigits        = 4
)

// RedactPhone replaces every E.164-looking run of digits in s by a mask
// that keeps only its last four digits ("+15551234567" → "+*******4567").
func RedactPhone(s string) string {
	if !hasDigitRun(s, minPrefixedDigits) {
		return s // fast path: most log values hold no long digit run
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		prefix := phonePrefixLen(s, i)
		start := i + prefix
		end := start
		for end < len(s) && isDigit(s[end]) {
			end++
		}
		n := end - start
		minDigits := minBareDigits
		if prefix > 0 {
			minDigits = minPrefixedDigits
		}
		bounded := (prefix > 0 || i == 0 || !isWordByte(s[i-1])) && (end == len(s) || !isWordByte(s[end]))
		if n >= minDigits && n <= maxPhoneDigits && bounded {
			b.WriteString(s[i:start])
			b.WriteString(strings.Repeat("*", n-keepDigits))
			b.WriteString(s[end-keepDigits : end])
			i = end
			continue
		}
		if n > 0 {
			// Copy the whole run (prefix included) so its tail is not
			// mistaken for a run of its own.
			b.WriteString(s[i:end])
			i = end
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// RedactPath returns a request path (with its query, if any) fit for logs:
// phone numbers in the path and in query values are masked by RedactPhone,
// and the values of parameters that grant access (signature, token, _csrf)
// are replaced by "redacted".
func RedactPath(path string) string {
	p, rawQuery, hasQuery := strings.Cut(path, "?")
	p = RedactPhone(p)
	if !hasQuery {
		return p
	}
	pairs := strings.Split(rawQuery, "&")
	for i, pair := range pairs {
		k, v, hasValue := strings.Cut(pair, "=")
		if !hasValue {
			pairs[i] = RedactPhone(pair)
			continue
		}
		if name, err := url.QueryUnescape(k); err == nil && secretParam(name) {
			v = "redacted"
		}
		pairs[i] = RedactPhone(k) + "=" + RedactPhone(v)
	}
	return p + "?" + strings.Join(pairs, "&")
}

func secretParam(k string) bool {
	switch strings.ToLower(k) {
	case "signature", "token", "access_token", "_csrf", "secret", "password":
		return true
	}
	return false
}

// phonePrefixLen returns the length of a "+" or "%2B" at s[i] that is
// followed by a digit, else 0.
func phonePrefixLen(s string, i int) int {
	switch {
	case s[i] == '+' && i+1 < len(s) && isDigit(s[i+1]):
		return 1
	case s[i] == '%' && i+3 < len(s) && s[i+1] == '2' && (s[i+2] == 'B' || s[i+2] == 'b') && isDigit(s[i+3]):
		return 3
	}
	return 0
}

func hasDigitRun(s string, n int) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			run++
			if run >= n {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isWordByte(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '_' || c == '.'
}
