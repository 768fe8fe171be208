package obs

import (
	"net/url"
	"strings"
	"unicode/utf8"
)

// How RedactPhone tells a phone number from other digits.
//
// It reads the text as units: a byte, or a percent escape ("%2B", "%20",
// "%34") standing for the byte it encodes, so a number is found in a raw URL
// however a client encoded it. A run is a stretch of digits and separators
// (space, "-", ".", "(", ")", "/", "+", ":", tab and any non-ASCII byte);
// letters, quotes, "=", "&", "," and the like end it. The digit groups of a
// run that belong to a word are set aside: a group touching a letter or "_"
// ("v1", "a456", "01JD3X..."), or touching one through a single "-" or "."
// ("a456-426614174000", a UUID), a group next to another through ":"
// (times, host:port), and, through single "-" and "." joints, the groups
// chained to those. The groups left form candidates (consecutive groups of
// a run); a candidate is a phone number when
//
//   - it is one group of 9 to 15 digits, 7 to 15 after "+" (or "%2B"), or
//     13 to 19 digits passing the Luhn check (a card number);
//   - it is several groups with 7 digits or more in all ("(415) 354-6544",
//     "+1 415 585 4147", "415.351.8446", "+1+415+585+4147" in a query),
//     unless it is a date (2026-11-22, which is then skipped and the rest
//     read again), an IPv4 address or a decimal number ("0.123456789").
//
// Full-width, Arabic-Indic and Devanagari digits count as digits, as they do
// for libphonenumber. Every digit of a number but its last four becomes "*"
// (an encoded digit "%2A", a multi-byte digit one "*" per byte), so the
// text keeps its length and shape. An amount (at most
// 8 digits), a ULID, a UUID, an RFC 3339 timestamp and a request id come out
// unchanged.
const (
	minIntlDigits     = 7
	minBareDigits     = 9
	minGroupedDigits  = 7
	maxPhoneDigits    = 15
	minCardDigits     = 13
	maxCardDigits     = 19
	keepDigits        = 4
	unitClassOther    = 0
	unitClassDigit    = 1
	unitClassLetter   = 2
	unitClassSep      = 3
	unitClassColon    = 4
	maskedEncodedUnit = "%2A"
)

// unit is one character of the text: s[start:end] stands for b.
type unit struct {
	start, end int
	b          byte
}

func (u unit) class() int {
	switch b := u.b; {
	case b >= '0' && b <= '9':
		return unitClassDigit
	case b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z', b == '_':
		return unitClassLetter
	case b == ' ', b == '-', b == '.', b == '(', b == ')', b == '/', b == '+', b == '\t', b >= 0x80:
		return unitClassSep
	case b == ':':
		return unitClassColon
	}
	return unitClassOther
}

// group is a run of digit units, units[from:to].
type group struct {
	from, to int
	glued    bool
}

func (g group) digits() int { return g.to - g.from }

// RedactPhone masks every phone number (and card number) in s but its last
// four digits: "+15551234567" → "+*******4567", "(415) 354-6544" →
// "(***) ***-6544", "%2B1%20415%20585%204147" → "%2B*%20***%20***%204147".
func RedactPhone(s string) string {
	if !mayHoldPhone(s) {
		return s // fast path: most log values hold few digits
	}
	return redactUnits(s)
}

// redactUnits is RedactPhone without its fast path.
func redactUnits(s string) string {
	units := toUnits(s)
	mask := make([]bool, len(units))
	marked := false
	for i := 0; i < len(units); {
		c := units[i].class()
		if c != unitClassDigit && c != unitClassSep && c != unitClassColon {
			i++
			continue
		}
		j := i
		for j < len(units) {
			if c := units[j].class(); c != unitClassDigit && c != unitClassSep && c != unitClassColon {
				break
			}
			j++
		}
		if redactRun(units, i, j, mask) {
			marked = true
		}
		i = j
	}
	if !marked {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for k, u := range units {
		switch {
		case !mask[k]:
			b.WriteString(s[u.start:u.end])
		case s[u.start] == '%':
			b.WriteString(maskedEncodedUnit)
		default: // a digit, one "*" per byte (a full-width digit has three)
			b.WriteString(strings.Repeat("*", u.end-u.start))
		}
	}
	return b.String()
}

// redactRun marks the digits to mask in units[from:to], a run, and reports
// whether it marked any.
func redactRun(units []unit, from, to int, mask []bool) bool {
	var groups []group
	for k := from; k < to; {
		if units[k].class() != unitClassDigit {
			k++
			continue
		}
		g := group{from: k}
		for k < to && units[k].class() == unitClassDigit {
			k++
		}
		g.to = k
		groups = append(groups, g)
	}
	if len(groups) == 0 {
		return false
	}
	glue(units, groups)
	marked := false
	for k := 0; k < len(groups); {
		if groups[k].glued {
			k++
			continue
		}
		end := k
		for end < len(groups) && !groups[end].glued {
			end++
		}
		if redactCandidate(units, groups[k:end], mask) {
			marked = true
		}
		k = end
	}
	return marked
}

// glue sets aside the groups that belong to a word (see the comment at the
// top of the file).
func glue(units []unit, groups []group) {
	at := func(k int) int { // class of units[k], other outside the text
		if k < 0 || k >= len(units) {
			return unitClassOther
		}
		return units[k].class()
	}
	joiner := func(k int) bool { return k >= 0 && k < len(units) && (units[k].b == '-' || units[k].b == '.') }
	for k := range groups {
		g := &groups[k]
		before, after := g.from-1, g.to
		switch {
		case at(before) == unitClassLetter, at(after) == unitClassLetter && !extension(units, after):
			g.glued = true
		case joiner(before) && at(before-1) == unitClassLetter, joiner(after) && at(after+1) == unitClassLetter:
			g.glued = true
		case at(before) == unitClassColon && at(before-1) == unitClassDigit,
			at(after) == unitClassColon && at(after+1) == unitClassDigit:
			g.glued = true
		}
	}
	// Chains through single "-" or "." joints: both directions.
	chained := func(a, b group) bool { return b.from-a.to == 1 && joiner(a.to) }
	for k := 1; k < len(groups); k++ {
		if groups[k-1].glued && chained(groups[k-1], groups[k]) {
			groups[k].glued = true
		}
	}
	for k := len(groups) - 2; k >= 0; k-- {
		if groups[k+1].glued && chained(groups[k], groups[k+1]) {
			groups[k].glued = true
		}
	}
}

// extension reports whether the letters at units[k] mark a phone
// extension ("x12", "ext. 12", "ext12"), which does not glue.
func extension(units []unit, k int) bool {
	word := make([]byte, 0, 3)
	for k < len(units) && units[k].class() == unitClassLetter && len(word) < 4 {
		word = append(word, units[k].b|0x20)
		k++
	}
	switch string(word) {
	case "x", "ext":
		return true
	}
	return false
}

// redactCandidate marks the digits of groups, consecutive groups of one
// run, when they are a phone or card number.
func redactCandidate(units []unit, groups []group, mask []bool) bool {
	for skip := datePrefix(units, groups); skip > 0; skip = datePrefix(units, groups) {
		groups = groups[skip:]
	}
	if len(groups) == 0 {
		return false
	}
	n := 0
	for _, g := range groups {
		n += g.digits()
	}
	if !isNumber(units, groups, n) {
		return false
	}
	keep := keepDigits
	for k := len(groups) - 1; k >= 0; k-- {
		for u := groups[k].to - 1; u >= groups[k].from; u-- {
			if keep > 0 {
				keep--
				continue
			}
			mask[u] = true
		}
	}
	return true
}

func isNumber(units []unit, groups []group, n int) bool {
	if len(groups) == 1 {
		g := groups[0]
		intl := g.from > 0 && units[g.from-1].b == '+'
		switch {
		case n >= minBareDigits && n <= maxPhoneDigits, intl && n >= minIntlDigits && n <= maxPhoneDigits:
			return true
		case n >= minCardDigits && n <= maxCardDigits:
			return luhn(units[g.from:g.to])
		}
		return false
	}
	if n < minGroupedDigits {
		return false
	}
	return !ipv4(units, groups) && !decimal(units, groups)
}

// sep is the text between two groups of a run.
func sep(units []unit, a, b group) []unit { return units[a.to:b.from] }

func single(units []unit, a, b group, c byte) bool {
	s := sep(units, a, b)
	return len(s) == 1 && s[0].b == c
}

// datePrefix returns 3 when groups begin with a date (2026-11-22,
// 2026/11/22, 2026.11.22), else 0.
func datePrefix(units []unit, groups []group) int {
	if len(groups) < 3 || groups[0].digits() != 4 || groups[1].digits() != 2 || groups[2].digits() != 2 {
		return 0
	}
	for _, c := range []byte("-/.") {
		if single(units, groups[0], groups[1], c) && single(units, groups[1], groups[2], c) {
			return 3
		}
	}
	return 0
}

func ipv4(units []unit, groups []group) bool {
	if len(groups) != 4 {
		return false
	}
	for k, g := range groups {
		if g.digits() > 3 || (k > 0 && !single(units, groups[k-1], g, '.')) {
			return false
		}
	}
	return true
}

func decimal(units []unit, groups []group) bool {
	return len(groups) == 2 && single(units, groups[0], groups[1], '.')
}

func luhn(digits []unit) bool {
	sum := 0
	for k := range digits {
		d := int(digits[len(digits)-1-k].b - '0')
		if k%2 == 1 {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}

// toUnits splits s into bytes and percent escapes.
func toUnits(s string) []unit {
	units := make([]unit, 0, len(s))
	for i := 0; i < len(s); {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			units = append(units, unit{start: i, end: i + 3, b: unhex(s[i+1])<<4 | unhex(s[i+2])})
			i += 3
			continue
		}
		if s[i] >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if d, ok := unicodeDigit(r); ok {
				units = append(units, unit{start: i, end: i + n, b: d})
				i += n
				continue
			}
		}
		units = append(units, unit{start: i, end: i + 1, b: s[i]})
		i++
	}
	return units
}

// unicodeDigit maps the digits libphonenumber reads besides ASCII ones
// (full-width, Arabic-Indic, Eastern Arabic-Indic, Devanagari) to ASCII.
func unicodeDigit(r rune) (byte, bool) {
	for _, zero := range [...]rune{'\uFF10', '\u0660', '\u06F0', '\u0966'} {
		if r >= zero && r <= zero+9 {
			return byte('0' + r - zero), true
		}
	}
	return 0, false
}

// RedactPath returns a request path (with its query, if any) fit for logs:
// phone numbers in the path and in query values are masked by RedactPhone,
// the values of parameters that grant access (signature, token, _csrf) are
// replaced by "redacted", and a signed link's expires (a Unix time) is kept.
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
		name, err := url.QueryUnescape(k)
		switch {
		case err == nil && secretParam(name):
			v = "redacted"
		case err == nil && strings.EqualFold(name, "expires") && allDigits(v):
		default:
			v = RedactPhone(v)
		}
		pairs[i] = RedactPhone(k) + "=" + v
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

// mayHoldPhone reports whether s may hold a number RedactPhone masks: a run
// of units it reads together (digits, separators and colons, a percent
// escape counting as the byte it encodes) with at least minGroupedDigits
// digits, the fewest any candidate needs; or any non-ASCII byte (which may
// be a full-width digit). When it says no, RedactPhone would return s
// unchanged, so the ids in a log line (ULIDs, UUIDs), whose letters break
// their digits into short runs, skip the units RedactPhone would build.
func mayHoldPhone(s string) bool {
	digits := 0
	for i := 0; i < len(s); {
		u := unit{b: s[i]}
		switch {
		case s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			u.b = unhex(s[i+1])<<4 | unhex(s[i+2])
			i += 3
		case s[i] >= utf8.RuneSelf:
			return true
		default:
			i++
		}
		switch u.class() {
		case unitClassDigit:
			if digits++; digits >= minGroupedDigits {
				return true
			}
		case unitClassSep, unitClassColon:
		default:
			digits = 0
		}
	}
	return false
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') }

func unhex(c byte) byte {
	switch {
	case isDigit(c):
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
