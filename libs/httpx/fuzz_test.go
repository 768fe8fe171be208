package httpx_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/httpx"
)

// fuzzBody is a representative request body: strings, integers, a nested
// object, a list of objects, maps and raw values, an embedded struct.
type fuzzBody struct {
	strictEmbedded
	Name    *string `json:"name"`
	Amount  *int64  `json:"amount"`
	Active  *bool   `json:"active"`
	Contact *struct {
		Phone string `json:"phone"`
		Tags  []string
	} `json:"contact"`
	Steps []struct {
		DelayHours int    `json:"delay_hours"`
		Message    string `json:"message"`
	} `json:"steps"`
	CustomFields map[string]json.RawMessage `json:"custom_fields"`
	Extra        map[string]any             `json:"extra"`
	Items        httpx.Items                `json:"items"`
}

// clientError asserts err is an *apierr.Error with a 4xx status and, for
// validation_failed, details naming at least one field.
func clientError(t *testing.T, err error) {
	t.Helper()
	var ae *apierr.Error
	if !errors.As(err, &ae) {
		t.Fatalf("error %v (%T) is not an *apierr.Error", err, err)
	}
	if ae.Status < 400 || ae.Status > 499 {
		t.Fatalf("error status %d, want 4xx: %v", ae.Status, ae)
	}
	if ae.Code == apierr.CodeValidationFailed {
		if d, ok := ae.Details.(map[string][]string); !ok || len(d) == 0 {
			t.Fatalf("validation_failed without field details: %#v", ae.Details)
		}
	}
}

// holdsNUL reports whether any string reachable from v holds U+0000.
func holdsNUL(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		return strings.ContainsRune(v.String(), 0)
	case reflect.Pointer, reflect.Interface:
		return !v.IsNil() && holdsNUL(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() || v.Type().Field(i).Anonymous {
				if holdsNUL(v.Field(i)) {
					return true
				}
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 { // json.RawMessage: raw JSON text
			return strings.Contains(string(v.Bytes()), `\u0000`) || strings.ContainsRune(string(v.Bytes()), 0)
		}
		for i := range v.Len() {
			if holdsNUL(v.Index(i)) {
				return true
			}
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			if holdsNUL(k) || holdsNUL(v.MapIndex(k)) {
				return true
			}
		}
	}
	return false
}

// FuzzDecode: Decode never panics; every refusal is a 4xx *apierr.Error;
// an accepted body holds no NUL (outside the items left to DecodeItem), no
// key twice and no key in other case, and decodes the same way again from
// its own re-encoding.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		``, `{}`, `[]`, `"x"`, `{"name":"Ada","amount":5}`, `{"name":"a\u0000"}`, `{"name":"a\\u0000"}`,
		`{"name":"a","NAME":"b"}`, `{"name":"a","name":"b"}`, `{"n\u0061me":"x"}`, `{"email":"a@b.c"}`,
		`{"contact":{"phone":"+1","Tags":["x"]}}`, `{"contact":{"PHONE":"+1"}}`,
		`{"steps":[{"delay_hours":1,"message":"hi"},{"message":"\u0000"}]}`,
		`{"custom_fields":{"a":1,"b":{"c":[1,"\u0000"]}},"extra":{"x":{"y":null}}}`,
		`{"custom_fields":{"a":1,"a":2}}`, `{"items":[{"x":"\u0000"},{"x":1,"x":2}]}`,
		`{"amount":1.5}`, `{"amount":"5"}`, `{"active":true,"extra":[1,2]}`, `{"name":` + strings.Repeat("[", 50),
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var dst fuzzBody
		err := httpx.DecodeBytes(body, &dst)
		if err != nil {
			clientError(t, err)
			return
		}
		dst.Items = nil // left to DecodeItem
		if holdsNUL(reflect.ValueOf(dst)) {
			t.Fatalf("accepted %q holds a NUL: %+v", body, dst)
		}
		again, err := json.Marshal(dst)
		if err != nil {
			t.Fatalf("re-encoding %+v: %v", dst, err)
		}
		var back fuzzBody
		if err := httpx.DecodeBytes(again, &back); err != nil {
			t.Fatalf("re-encoded body %s refused: %v", again, err)
		}
		if !reflect.DeepEqual(normalise(t, dst), normalise(t, back)) {
			t.Fatalf("round trip differs:\n first %s\nsecond %s", again, mustJSON(t, back))
		}
	})
}

// normalise is the JSON text of v read back generically, so raw values
// compare by meaning rather than spacing.
func normalise(t *testing.T, v any) any {
	var out any
	if err := json.Unmarshal(mustJSON(t, v), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzDecodeItem: DecodeItem never panics and every problem it reports
// names a field; an accepted item holds no NUL.
func FuzzDecodeItem(f *testing.F) {
	for _, seed := range []string{`{"name":"a"}`, `{"name":"\u0000"}`, `{"name":1,"name":2}`, `[1]`, ``, `{"NAME":"x"}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var dst fuzzBody
		problems := httpx.DecodeItem(raw, &dst)
		if problems != nil {
			for field, msgs := range problems {
				if field == "" || len(msgs) == 0 {
					t.Fatalf("problem without field or message: %v", problems)
				}
			}
			return
		}
		dst.Items = nil
		if holdsNUL(reflect.ValueOf(dst)) {
			t.Fatalf("accepted %q holds a NUL", raw)
		}
	})
}

// queryCtx returns a Fiber context for a GET with the raw query, released
// when the test ends.
func queryCtx(t *testing.T, app *fiber.App, rawQuery string) *fiber.Ctx {
	var fctx fasthttp.RequestCtx
	fctx.Request.Header.SetMethod("GET")
	fctx.Request.SetRequestURI("/things?" + rawQuery)
	c := app.AcquireCtx(&fctx)
	t.Cleanup(func() { app.ReleaseCtx(c) })
	return c
}

// FuzzQuery: Query and Queries never panic; a refusal is a 4xx
// *apierr.Error naming the parameter; an accepted value is UTF-8 without
// NUL and equals what the query decodes to.
func FuzzQuery(f *testing.F) {
	for _, seed := range []string{"q=x", "q=%00", "q=%FF", "q=%E2%82%AC", "q=a+b", "q=", "p=1", "q=%C0%80&q=2", "q=%", "q=%zz"} {
		f.Add(seed)
	}
	app := fiber.New()
	f.Fuzz(func(t *testing.T, rawQuery string) {
		c := queryCtx(t, app, rawQuery)
		v, present, err := httpx.QueryValue(c, "q")
		if err != nil {
			clientError(t, err)
			if d := err.(*apierr.Error).Details.(map[string][]string); d["q"] == nil {
				t.Fatalf("refusal does not name q: %v", d)
			}
		} else {
			if !utf8.ValidString(v) || strings.ContainsRune(v, 0) {
				t.Fatalf("accepted %q", v)
			}
			if !present && v != "" {
				t.Fatalf("absent parameter read as %q", v)
			}
		}
		q := httpx.Queries(c)
		_ = q.Text("q")
		_ = q.Text("p")
		if err := q.Err(); err != nil {
			clientError(t, err)
		}
	})
}

// FuzzParsePage: ParsePage never panics; it answers a page within bounds
// or a 422 naming page or per_page.
func FuzzParsePage(f *testing.F) {
	for _, seed := range []string{"", "page=2", "per_page=500", "page=0", "page=-1", "page=%00", "per_page=%FF",
		"page=99999999999999999999", "page=+3", "page= 4", "per_page=1&page=9223372036854775807"} {
		f.Add(seed)
	}
	app := fiber.New()
	f.Fuzz(func(t *testing.T, rawQuery string) {
		c := queryCtx(t, app, rawQuery)
		p, err := httpx.ParsePage(c, 25)
		if err != nil {
			clientError(t, err)
			d := err.(*apierr.Error).Details.(map[string][]string)
			if d["page"] == nil && d["per_page"] == nil {
				t.Fatalf("refusal names neither page nor per_page: %v", d)
			}
			return
		}
		if p.Number < 1 || p.PerPage < 1 || p.PerPage > httpx.MaxPerPage || p.Offset() < 0 {
			t.Fatalf("page out of bounds: %+v offset %d", p, p.Offset())
		}
	})
}
