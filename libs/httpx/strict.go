package httpx

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Items is a list of request items that the handler reads one by one with
// DecodeItem (a bulk endpoint's rows). Decode leaves their content to
// DecodeItem, so a problem inside one item (a NUL, a repeated key) becomes
// that item's problem instead of refusing the whole request.
type Items []json.RawMessage

// nulEscape is how U+0000 can appear in valid JSON: raw control bytes are
// not valid JSON, so only this escape can carry one. Its hex digits are all
// zeros, so there is no other spelling of it to look for.
const nulEscape = `\u0000`

// strictProblem is the first problem the strict scan found: the path to
// the field (innermost segment first, filled in as the scan unwinds) and
// the end of its message.
type strictProblem struct {
	segs []string
	what string
}

// field is the dotted field the problem names ("body" at the root).
func (p *strictProblem) field() string {
	if len(p.segs) == 0 {
		return "body"
	}
	var b strings.Builder
	for i := len(p.segs) - 1; i >= 0; i-- {
		b.WriteString(p.segs[i])
		if i > 0 {
			b.WriteByte('.')
		}
	}
	return b.String()
}

// checkStrict walks a valid JSON document alongside the Go type it will be
// decoded into and reports what encoding/json would let through: a key that
// is not exactly a field's JSON name (encoding/json matches names ignoring
// case), a key repeated in one object (encoding/json keeps the last), and,
// only when the document holds a \u0000 escape at all, a string or key
// holding U+0000 (Postgres refuses it in text and jsonb). It is one pass
// over the bytes that allocates nothing unless it finds a problem; it
// returns the dotted field and the message, or ok.
func checkStrict(data []byte, t reflect.Type) (field, message string, ok bool) {
	s := keyScanner{data: data, nul: bytes.Contains(data, []byte(nulEscape)), text: !textOnly(data)}
	s.value(t)
	if s.problem == nil {
		return "", "", true
	}
	field = s.problem.field()
	return field, "The " + field + " field " + s.problem.what, false
}

// keyScanner holds the state of one checkStrict call. It reads only valid
// JSON (json.Valid ran first), so it does not check the grammar.
type keyScanner struct {
	data []byte
	pos  int
	nul  bool
	// text: the document holds bytes that are not UTF-8 or a surrogate
	// escape, so strings are checked for them (Postgres refuses both in
	// jsonb, encoding/json would turn them into U+FFFD in text).
	text    bool
	problem *strictProblem
	// structs are the field lists of the struct types met so far, built
	// once per call in fixed arrays (no allocation, no package-level
	// cache); a struct too large for them is looked up field by field.
	structs  [4]structFields
	nstructs int
}

// fail records a problem of the current value; the callers up the stack
// add their path segments as they return.
func (s *keyScanner) fail(what string) {
	s.problem = &strictProblem{what: what}
}

func (s *keyScanner) skipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\r', '\n':
			s.pos++
		default:
			return
		}
	}
}

// value reads the value at pos, to be decoded into t (nil: any value).
func (s *keyScanner) value(t reflect.Type) {
	s.skipSpace()
	if s.pos >= len(s.data) {
		return
	}
	switch s.data[s.pos] {
	case '{':
		s.object(t)
	case '[':
		s.array(t)
	case '"':
		content, escaped := s.str()
		switch {
		case escaped && s.nul && hasNUL(content):
			s.fail("must not contain the NUL character.")
		case s.text && !validText(content):
			s.fail("must be valid UTF-8 text.")
		}
	default:
		for s.pos < len(s.data) {
			switch s.data[s.pos] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return
			}
			s.pos++
		}
	}
}

// str reads the string at pos and returns its content between the quotes,
// still escaped, and whether it holds an escape.
func (s *keyScanner) str() (content []byte, escaped bool) {
	start := s.pos + 1
	i := start
	for {
		j := bytes.IndexByte(s.data[i:], '"')
		if j < 0 { // cannot happen in valid JSON
			s.pos = len(s.data)
			return s.data[start:], false
		}
		i += j
		backslashes := 0
		for k := i - 1; k >= start && s.data[k] == '\\'; k-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			break
		}
		i++
	}
	s.pos = i + 1
	content = s.data[start:i]
	return content, bytes.IndexByte(content, '\\') >= 0
}

// textOnly reports whether data is UTF-8 without a surrogate escape (\uD800
// to \uDFFF, which only a pair may use): the common case, which needs no
// look at each string.
func textOnly(data []byte) bool {
	if !utf8.Valid(data) {
		return false
	}
	for i := bytes.Index(data, []byte(`\u`)); i >= 0; {
		if i+2 < len(data) && (data[i+2] == 'd' || data[i+2] == 'D') {
			return false
		}
		next := bytes.Index(data[i+2:], []byte(`\u`))
		if next < 0 {
			break
		}
		i += 2 + next
	}
	return true
}

// validText reports whether escaped string content is UTF-8 whose
// surrogate escapes come in high-low pairs. An escaped backslash before a
// "u" is text, as hasNUL reads it.
func validText(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	pendingHigh := false
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			if pendingHigh {
				return false
			}
			continue
		}
		i++
		if i >= len(b) || b[i] != 'u' || i+4 >= len(b) {
			if pendingHigh {
				return false
			}
			continue
		}
		r, err := strconv.ParseUint(string(b[i+1:i+5]), 16, 16)
		i += 4
		switch {
		case err != nil:
			return false
		case r >= 0xD800 && r <= 0xDBFF:
			if pendingHigh {
				return false
			}
			pendingHigh = true
		case r >= 0xDC00 && r <= 0xDFFF:
			if !pendingHigh {
				return false
			}
			pendingHigh = false
		default:
			if pendingHigh {
				return false
			}
		}
	}
	return !pendingHigh
}

// hasNUL reports whether escaped string content holds \u0000 as an escape
// (not as the text after an escaped backslash).
func hasNUL(b []byte) bool {
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		i++
		if i < len(b) && b[i] == 'u' {
			if i+4 < len(b) && string(b[i+1:i+5]) == "0000" {
				return true
			}
			i += 4
		}
	}
	return false
}

// target is the type a JSON object or array is decoded into, with pointers
// removed; nil when encoding/json would not look at its keys itself (an
// interface, a json.Unmarshaler such as json.RawMessage, a type mismatch).
func target(t reflect.Type, kind reflect.Kind) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != kind && !(kind == reflect.Slice && t.Kind() == reflect.Array) {
		return nil
	}
	if reflect.PointerTo(t).Implements(reflect.TypeFor[json.Unmarshaler]()) {
		return nil
	}
	return t
}

func (s *keyScanner) object(t reflect.Type) {
	s.pos++ // {
	var elem reflect.Type
	st := target(t, reflect.Struct)
	if st == nil {
		if mt := target(t, reflect.Map); mt != nil {
			elem = mt.Elem()
		}
	}
	// The keys seen so far: a list while the object is small (kept on the
	// stack), a set once it is large, so a huge object stays linear.
	var small [16][]byte
	seen := small[:0]
	var set map[string]struct{}
	for {
		s.skipSpace()
		if s.data[s.pos] == '}' {
			s.pos++
			return
		}
		if s.data[s.pos] == ',' {
			s.pos++
			s.skipSpace()
		}
		raw, escaped := s.str()
		key := raw
		if s.text && !validText(raw) {
			s.fail("must not hold a key that is not valid UTF-8 text.")
			return
		}
		if escaped {
			if s.nul && hasNUL(raw) {
				s.fail("must not hold a key with the NUL character.")
				return
			}
			key = unescapeKey(s.data[s.pos-len(raw)-2 : s.pos])
		}
		s.skipSpace()
		s.pos++ // :
		if st != nil {
			ft, ok := s.fieldOf(st, key)
			if !ok {
				s.failAt(key, "is not allowed.")
				return
			}
			elem = ft
		}
		if set == nil && len(seen) == len(small) {
			set = make(map[string]struct{}, 4*len(seen))
			for _, k := range seen {
				set[string(k)] = struct{}{}
			}
		}
		dup := false
		if set != nil {
			_, dup = set[string(key)]
			set[string(key)] = struct{}{}
		} else {
			for _, k := range seen {
				if bytes.Equal(k, key) {
					dup = true
					break
				}
			}
			seen = append(seen, key)
		}
		if dup {
			s.failAt(key, "appears more than once.")
			return
		}
		s.value(elem)
		if s.problem != nil {
			s.problem.segs = append(s.problem.segs, string(key))
			return
		}
		s.skipSpace()
	}
}

// failAt records a problem of the member key of the current object.
func (s *keyScanner) failAt(key []byte, what string) {
	s.fail(what)
	s.problem.segs = append(s.problem.segs, keyName(string(key)))
}

// keyName is how a problem names a member key: the key itself, or `""` for
// the empty key, so every problem names a field a client can find.
func keyName(key string) string {
	if key == "" {
		return `""`
	}
	return key
}

func (s *keyScanner) array(t reflect.Type) {
	s.pos++ // [
	var elem reflect.Type
	if at := target(t, reflect.Slice); at != nil {
		if at == reflect.TypeFor[Items]() {
			s.skipValue()
			return
		}
		elem = at.Elem()
	}
	for i := 0; ; i++ {
		s.skipSpace()
		if s.data[s.pos] == ']' {
			s.pos++
			return
		}
		if s.data[s.pos] == ',' {
			s.pos++
		}
		s.value(elem)
		if s.problem != nil {
			s.problem.segs = append(s.problem.segs, strconv.Itoa(i))
			return
		}
		s.skipSpace()
	}
}

// skipValue moves past the rest of an array whose '[' was read, looking at
// nothing inside it.
func (s *keyScanner) skipValue() {
	depth := 1
	for s.pos < len(s.data) && depth > 0 {
		switch s.data[s.pos] {
		case '"':
			s.str()
			continue
		case '[', '{':
			depth++
		case ']', '}':
			depth--
		}
		s.pos++
	}
}

// unescapeKey returns a quoted key with its escapes resolved, as
// encoding/json compares it with the field names.
func unescapeKey(quoted []byte) []byte {
	var k string
	if json.Unmarshal(quoted, &k) != nil {
		return quoted
	}
	return []byte(k)
}
