package apifuzz

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"reflect"
	"sort"
	"strings"
)

// Fuzzer derives hostile requests from the documented operations. Request
// i is a function of Seed and i alone, so a run is reproducible and a
// failing request can be generated again by its number.
type Fuzzer struct {
	Ops   []Operation
	Seed  uint64
	Token string
	// PathValue is the value of a path parameter in a valid request (an id
	// of the fuzzing tenant's own resources, so requests reach the
	// handlers); Fill supplies body references the same way. Either may
	// be nil.
	PathValue func(op Operation, param string) string
	Fill      func(op Operation) Filler
	// Query supplies valid query values (for example the tenant's own ids
	// as filters); nil leaves optional parameters out.
	Query func(op Operation, name string) (string, bool)
}

// FuzzTargets returns the operations the HTTP fuzz pass drives: every
// write (POST, PUT, PATCH, DELETE) and every GET with a path or query
// parameter.
func FuzzTargets(ops []Operation) []Operation {
	var out []Operation
	for _, op := range ops {
		if op.Public {
			continue
		}
		if op.Writes() || len(op.Params) > 0 && (len(op.Query()) > 0 || len(op.PathParams()) > 0) {
			out = append(out, op)
		}
	}
	return out
}

// kinds of mutation; a kind applies to an operation when kindApplies.
var (
	bodyKinds = []string{
		"wrong-type", "wrong-type", "missing-required", "missing-required", "nul-in-string", "nul-in-string",
		"invalid-utf8", "invalid-utf8", "huge-string", "deep-nesting", "huge-array", "duplicate-key",
		"case-variant-key", "case-variant-key", "number-out-of-range", "number-out-of-range", "extra-field",
		"content-type", "content-type", "empty-body", "non-json", "non-json",
	}
	pathKinds   = []string{"bad-path-id", "bad-path-id", "bad-path-id"}
	queryKinds  = []string{"bad-query", "bad-query", "bad-query", "bad-query"}
	commonKinds = []string{"valid", "valid", "header", "method", "raw"}
)

// Request returns request i.
func (f *Fuzzer) Request(i uint64) Request {
	r := rand.New(rand.NewPCG(f.Seed, i))
	op := f.Ops[r.IntN(len(f.Ops))]
	kinds := append([]string(nil), commonKinds...)
	if op.Body != nil {
		kinds = append(kinds, bodyKinds...)
	}
	if len(op.PathParams()) > 0 {
		kinds = append(kinds, pathKinds...)
	}
	if len(op.Query()) > 0 {
		kinds = append(kinds, queryKinds...)
	}
	kind := kinds[r.IntN(len(kinds))]
	req := f.valid(op, r)
	req.Kind = kind
	mutate(&req, op, kind, r, f.Token)
	return req
}

// Valid returns a well-formed request for op (a fixed choice of values).
func (f *Fuzzer) Valid(op Operation) Request {
	return f.valid(op, rand.New(rand.NewPCG(f.Seed, 0)))
}

func (f *Fuzzer) valid(op Operation, r *rand.Rand) Request {
	path := "/api/v1" + op.Path
	for _, p := range op.PathParams() {
		v := "01J0000000000000000000FUZZ"
		if f.PathValue != nil {
			v = f.PathValue(op, p)
		}
		path = strings.Replace(path, "{"+p+"}", url.PathEscape(v), 1)
	}
	q := url.Values{}
	for _, p := range op.Query() {
		if f.Query != nil {
			if v, ok := f.Query(op, p.Name); ok {
				q.Set(p.Name, v)
				continue
			}
		}
		if p.Required {
			q.Set(p.Name, fmt.Sprint(Valid(p.Schema, r, nil)))
		}
	}
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	req := Request{Method: op.Method, Path: path, Op: op.ID, Kind: "valid",
		Header: map[string]string{"Authorization": "Bearer " + f.Token}}
	if op.Body != nil {
		var fill Filler
		if f.Fill != nil {
			fill = f.Fill(op)
		}
		b, _ := json.Marshal(Valid(op.Body, r, fill))
		req.Body, req.HasBody = b, true
		req.Header["Content-Type"] = "application/json"
	}
	return req
}

// slot is a position in a decoded JSON value: a map key or an array index.
type slot struct {
	m   map[string]any
	key string
	a   []any
	i   int
}

func (s slot) get() any {
	if s.m != nil {
		return s.m[s.key]
	}
	return s.a[s.i]
}

func (s slot) set(v any) {
	if s.m != nil {
		s.m[s.key] = v
	} else {
		s.a[s.i] = v
	}
}

// slots lists every position of v, depth first, map keys sorted.
func slots(v any) []slot {
	var out []slot
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				out = append(out, slot{m: x, key: k})
				walk(x[k])
			}
		case []any:
			for i := range x {
				out = append(out, slot{a: x, i: i})
				walk(x[i])
			}
		}
	}
	walk(v)
	return out
}

// objects lists the maps of v (v itself first).
func objects(v any) []map[string]any {
	var out []map[string]any
	if m, ok := v.(map[string]any); ok {
		out = append(out, m)
	}
	for _, s := range slots(v) {
		if m, ok := s.get().(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// marker stands for raw JSON text spliced in after encoding.
const marker = "\u2063FUZZRAW\u2063"

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

var (
	wrongTypes = []any{123, -1, 1.5, true, false, nil, "str", "", []any{}, map[string]any{}, []any{1, "a", nil}, map[string]any{"a": 1}}
	numbers    = []string{"1e400", "-1e400", "9223372036854775808", "-9223372036854775809", "18446744073709551616",
		"1.5", "-1", "0", "-0", "2147483648", "1e-400", "123456789012345678901234567890", "1E+2", "0.0000001", "4.2e1"}
	badUTF8 = []string{"\xff\xfe\xfd", "a\xc3\x28b", "\xed\xa0\x80", "\xc0\xaf", "\xf8\x88\x80\x80\x80", "ok\x80"}
	escapes = []string{`\ud800`, `\udfff`, `\u0000`, `\ud83d`}
	oddCTs  = []string{"text/plain", "application/xml", "multipart/form-data", "multipart/form-data; boundary=x",
		"application/x-www-form-urlencoded", "application/json; charset=utf-16", "application/json; charset=latin1",
		"application/json;;;", "", "*/*", "application/jsonx", "APPLICATION/JSON", "application/merge-patch+json",
		"application/json; boundary=\xff", "text/html; charset=\xff\xfe", "application/octet-stream"}
	nonJSON = []string{"{", "}", "nul", "\xff\xfe{}", "[]", "null", "1", `"s"`, "{}garbage", "\ufeff{}", "{\"a\":}",
		"{'a':1}", "{\"a\":1,}", "[1,2", "\x00", "{\"a\":\"\\x\"}", "NaN", "true", "<xml/>", "a=1&b=2"}
	pathIDs = []string{"%00", "%FF", "%2e%2e", "..", ".", "a%2Fb", "%2F", "'%20OR%201=1--", "00000000-0000-0000-0000-000000000000",
		"01ARZ3NDEKTSV4RRFFQ69G5FAV", "%C0%AF", "%E2%80%AE", "-1", "0", "null", "%20", "%09", "~", "%25", "%u0000",
		"a%00b", "%FF%FE", "%F0%9F%92%A9", "1e400", "..%2F..%2Fadmin"}
	queryValues = []string{"%00", "%FF", "a%00b", "%C3%28", "-1", "0", "99999999999999999999", "1e3", "abc", "", "%20",
		"true", "[]", "%7B%7D", "%25", "%FF%00%FF", "1.5", "null", "%E2%80%AE", "2030-13-45", "2030-01-01T25:00:00Z"}
	headerCases = []map[string]string{
		{"Idempotency-Key": "\xff\xfe"}, {"Idempotency-Key": strings.Repeat("k", 300)}, {"Idempotency-Key": " "},
		{"Idempotency-Key": "ключ"}, {"Idempotency-Key": "a\x80b"}, {"X-Request-Id": "\xff"},
		{"X-Request-Id": strings.Repeat("r", 5000)}, {"Accept": "text/html"}, {"Accept": "application/xml"},
		{"Content-Encoding": "gzip"}, {"Content-Encoding": "br, \xff"}, {"Accept-Encoding": "\xff"},
		{"Authorization": "Bearer \xff\xfe"}, {"Authorization": "Bearer " + strings.Repeat("x", 8000)},
		{"Authorization": "Basic YTpi"}, {"Cookie": strings.Repeat("c=1; ", 500)}, {"X-Forwarded-For": "\xff, 999.1.1.1"},
		{"Idempotency-Key": "%00"}, {"Origin": "null"}, {"Range": "bytes=0-0"}, {"Expect": "100-continue"},
	}
	oddMethods = []string{"PROPFIND", "TRACE", "FOO", "OPTIONS", "HEAD", "PATCH", "PUT", "DELETE", "MKCOL", "LOCK", "get"}
)

// mutate turns req, a valid request of op, into a hostile one of kind.
func mutate(req *Request, op Operation, kind string, r *rand.Rand, token string) {
	var body any
	if req.HasBody {
		_ = json.Unmarshal(req.Body, &body)
	}
	setBody := func(v any, raw string) {
		b, _ := json.Marshal(v)
		b = bytes.Replace(b, []byte(`"`+marker+`"`), []byte(raw), 1)
		req.Body, req.HasBody = b, true
	}
	// target is a random position of the body, or a new root key when
	// the body has none (or is not an object).
	target := func() slot {
		ss := slots(body)
		if len(ss) == 0 || r.IntN(5) == 0 {
			m, ok := body.(map[string]any)
			if !ok {
				m = map[string]any{}
				body = m
			}
			names, _, _ := Properties(op.Body)
			key := "name"
			if len(names) > 0 {
				key = pick(r, names)
			}
			return slot{m: m, key: key}
		}
		return pick(r, ss)
	}
	stringTarget := func() slot {
		var strs []slot
		for _, s := range slots(body) {
			if _, ok := s.get().(string); ok {
				strs = append(strs, s)
			}
		}
		if len(strs) == 0 {
			return target()
		}
		return pick(r, strs)
	}
	switch kind {
	case "valid":
	case "wrong-type":
		target().set(pick(r, wrongTypes))
		setBody(body, "")
	case "missing-required":
		objs := objects(body)
		if len(objs) > 0 {
			m := pick(r, objs)
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			if len(keys) > 0 {
				delete(m, pick(r, keys))
			}
		}
		setBody(body, "")
	case "nul-in-string":
		s := stringTarget()
		v, _ := s.get().(string)
		s.set(pick(r, []string{"\x00", v + "\x00", "a\x00b", "\x00\x00\x00", v + "\u0000tail"}))
		setBody(body, "")
	case "invalid-utf8":
		stringTarget().set(marker)
		if r.IntN(3) == 0 {
			setBody(body, `"`+pick(r, escapes)+`"`)
		} else {
			setBody(body, `"`+pick(r, badUTF8)+`"`)
		}
	case "huge-string":
		n := pick(r, []int{70 << 10, 300 << 10, 1200 << 10})
		stringTarget().set(strings.Repeat(pick(r, []string{"a", "é", "\u0000", "9"}), n/2))
		setBody(body, "")
	case "deep-nesting":
		depth := pick(r, []int{10000, 10001, 100000})
		open, closeS := "[", "]"
		if r.IntN(2) == 0 {
			open, closeS = `{"a":`, "}"
		}
		nested := strings.Repeat(open, depth) + "1" + strings.Repeat(closeS, depth)
		if r.IntN(2) == 0 {
			req.Body, req.HasBody = []byte(nested), true
		} else {
			target().set(marker)
			setBody(body, nested)
		}
	case "huge-array":
		n := pick(r, []int{10000, 100000})
		var raw string
		if r.IntN(2) == 0 {
			raw = "[" + strings.Repeat("1,", n) + "1]"
		} else {
			raw = "[" + strings.Repeat(`{},`, n) + "{}]"
		}
		var arrs []slot
		for _, s := range slots(body) {
			if _, ok := s.get().([]any); ok {
				arrs = append(arrs, s)
			}
		}
		s := target()
		if len(arrs) > 0 && r.IntN(3) > 0 {
			s = pick(r, arrs)
		}
		s.set(marker)
		setBody(body, raw)
	case "duplicate-key", "case-variant-key":
		// An object of the body (the body itself or one inside it, such as
		// custom_fields) gets a key twice, or beside a variant of itself.
		objs := objects(body)
		var m map[string]any
		if len(objs) > 0 {
			m = pick(r, objs)
		}
		if len(m) == 0 {
			m = map[string]any{"name": "a"}
			if len(objs) == 0 {
				body = m
			}
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		k := pick(r, keys)
		if kind == "case-variant-key" {
			k = pick(r, []string{strings.ToUpper(k), strings.ToUpper(k[:1]) + k[1:], strings.ReplaceAll(k, "_", "-"), strings.ToUpper(k[len(k)-1:]) + k[:len(k)-1]})
		}
		dup, _ := json.Marshal(k)
		// The second value is the other key's (so it decodes), a string a
		// column cannot hold, or another type.
		val, _ := json.Marshal(pick(r, append([]any{m[keys[0]], m[k], strings.Repeat("9", 400), "a\u0000b", "+14155550000"}, wrongTypes...)))
		rest, _ := json.Marshal(m)
		var raw string
		if len(rest) > 2 {
			raw = "{" + string(dup) + ":" + string(val) + "," + string(rest[1:])
		} else {
			raw = "{" + string(dup) + ":" + string(val) + "}"
		}
		if r.IntN(2) == 0 {
			raw = raw[:len(raw)-1] + "," + string(dup) + ":" + string(val) + "}"
		}
		root, _ := body.(map[string]any)
		if root != nil && reflect.ValueOf(root).Pointer() == reflect.ValueOf(m).Pointer() {
			req.Body, req.HasBody = []byte(raw), true
			break
		}
		for _, s := range slots(body) {
			if sm, ok := s.get().(map[string]any); ok && reflect.ValueOf(sm).Pointer() == reflect.ValueOf(m).Pointer() {
				s.set(marker)
				break
			}
		}
		setBody(body, raw)
	case "number-out-of-range":
		var nums []slot
		for _, s := range slots(body) {
			if _, ok := s.get().(float64); ok {
				nums = append(nums, s)
			}
		}
		s := target()
		if len(nums) > 0 && r.IntN(4) > 0 {
			s = pick(r, nums)
		}
		s.set(marker)
		setBody(body, pick(r, numbers))
	case "extra-field":
		m, ok := body.(map[string]any)
		if !ok {
			m = map[string]any{}
		}
		extra := pick(r, []map[string]any{
			{"zz_extra": map[string]any{"nested": []any{1, 2}}}, {"__proto__": map[string]any{"admin": true}},
			{"tenant_id": "01J00000000000000000000000"}, {"id": "x"}, {"": 1}, {"\x00": 1},
			{strings.Repeat("k", 10000): 1}, {"constructor": map[string]any{"prototype": 1}},
		})
		for k, v := range extra {
			m[k] = v
		}
		setBody(m, "")
	case "content-type":
		ct := pick(r, oddCTs)
		if ct == "" {
			delete(req.Header, "Content-Type")
		} else {
			req.Header["Content-Type"] = ct
		}
		if r.IntN(3) == 0 {
			req.Body = []byte("a=1&b=%00")
		}
	case "empty-body":
		req.Body, req.HasBody = nil, r.IntN(2) == 0
	case "non-json":
		req.Body, req.HasBody = []byte(pick(r, nonJSON)), true
	case "bad-path-id":
		params := op.PathParams()
		p := pick(r, params)
		v := pick(r, pathIDs)
		if r.IntN(6) == 0 {
			v = strings.Repeat("A", pick(r, []int{300, 5000}))
		}
		path, query, _ := strings.Cut(req.Path, "?")
		segs := strings.Split(path, "/")
		tmpl := strings.Split("/api/v1"+op.Path, "/")
		for i := range segs {
			if i < len(tmpl) && tmpl[i] == "{"+p+"}" {
				segs[i] = v
			}
		}
		req.Path = strings.Join(segs, "/")
		if query != "" {
			req.Path += "?" + query
		}
	case "bad-query":
		path, query, _ := strings.Cut(req.Path, "?")
		qs := op.Query()
		name := "zz_unknown"
		if len(qs) > 0 && r.IntN(6) > 0 {
			name = pick(r, qs).Name
		}
		v := pick(r, queryValues)
		if r.IntN(8) == 0 {
			v = strings.Repeat("q", 5000)
		}
		var add string
		switch r.IntN(6) {
		case 0:
			add = url.QueryEscape(name) + "[]=" + v
		case 1:
			add = url.QueryEscape(name) + "=" + v + "&" + url.QueryEscape(name) + "=" + pick(r, queryValues)
		case 2:
			add = url.QueryEscape(name)
		case 3:
			add = "%FF" + url.QueryEscape(name) + "=" + v
		default:
			add = url.QueryEscape(name) + "=" + v
		}
		if query != "" && r.IntN(2) == 0 {
			query += "&" + add
		} else {
			query = add
		}
		req.Path = path + "?" + query
	case "header":
		for k, v := range pick(r, headerCases) {
			req.Header[k] = v
		}
	case "method":
		req.Method = pick(r, oddMethods)
	case "raw":
		req.Raw = rawRequest(req, pick(r, rawKinds), token)
	}
}

var rawKinds = []string{"content-length-too-large", "absolute-form", "bad-chunk", "cl-and-te", "header-without-colon",
	"http10-no-host", "nul-in-target", "long-header", "two-content-lengths", "nul-in-header", "bare-lf", "space-in-target"}

// rawRequest writes req as raw bytes, broken the way kind says.
func rawRequest(req *Request, kind, token string) []byte {
	req.Kind = "raw:" + kind
	body := req.Body
	if !req.HasBody {
		body = []byte(`{"a":1}`)
	}
	var b bytes.Buffer
	target := req.Path
	method := req.Method
	line := func(s string) { b.WriteString(s + "\r\n") }
	hdrs := func() {
		line("Host: {host}")
		line("Authorization: Bearer " + token)
		line("Content-Type: application/json")
		line("Accept: application/json")
	}
	switch kind {
	case "content-length-too-large":
		line(method + " " + target + " HTTP/1.1")
		hdrs()
		line(fmt.Sprintf("Content-Length: %d", len(body)+100))
		line("")
		b.Write(body)
	case "absolute-form":
		line(method + " https://{hostname}" + target + " HTTP/1.1")
		hdrs()
		line(fmt.Sprintf("Content-Length: %d", len(body)))
		line("")
		b.Write(body)
	case "bad-chunk":
		line(method + " " + target + " HTTP/1.1")
		hdrs()
		line("Transfer-Encoding: chunked")
		line("")
		line("zz")
		b.Write(body)
		line("")
		line("0")
		line("")
	case "cl-and-te":
		line(method + " " + target + " HTTP/1.1")
		hdrs()
		line("Transfer-Encoding: chunked")
		line(fmt.Sprintf("Content-Length: %d", len(body)))
		line("")
		line(fmt.Sprintf("%x", len(body)))
		b.Write(body)
		line("")
		line("0")
		line("")
	case "header-without-colon":
		line(method + " " + target + " HTTP/1.1")
		hdrs()
		line("X-Broken header value")
		line(fmt.Sprintf("Content-Length: %d", len(body)))
		line("")
		b.Write(body)
	case "http10-no-host":
		line(method + " " + target + " HTTP/1.0")
		line("Authorization: Bearer " + token)
		line("Content-Type: application/json")
		line(fmt.Sprintf("Content-Length: %d", len(body)))
		line("")
		b.Write(body)
	case "nul-in-target":
		line(method + " " + target + "\x00x HTTP/1.1")
		hdrs()
		line(fmt.Sprintf("Content-Length: %d", len(body)))
		line("")
		b.Write(body)
	case "long-header":
		line(method + " " + target + " HTTP/1.1")
		hdrs()
		line("X-Long: " + strings.Repeat("l", 70000))
		line(fmt.Sprintf("Content-Length: %d", len(body)))
		line("")
		b.Write(body)
	case "two-content-lengths":
		line(method + " " + target + " HTTP/1.1")
		hdrs()
		line(fmt.Sprintf("Content-Length: %d", len(body)))
		line(fmt.Sprintf("Content-Length: %d", len(body)+1))
		line("")
		b.Write(body)
	case "nul-in-header":
		line(method + " " + target + " HTTP/1.1")
		hdrs()
		line("Idempotency-Key: a\x00b")
		line(fmt.Sprintf("Content-Length: %d", len(body)))
		line("")
		b.Write(body)
	case "bare-lf":
		b.WriteString(method + " " + target + " HTTP/1.1\nHost: {host}\nAuthorization: Bearer " + token +
			fmt.Sprintf("\nContent-Type: application/json\nContent-Length: %d\n\n", len(body)))
		b.Write(body)
	case "space-in-target":
		line(method + " " + strings.Replace(target, "/v1/", "/v1/ x/", 1) + " HTTP/1.1")
		hdrs()
		line(fmt.Sprintf("Content-Length: %d", len(body)))
		line("")
		b.Write(body)
	}
	return b.Bytes()
}
