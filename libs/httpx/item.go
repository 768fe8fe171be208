package httpx

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
)

// DecodeItem reads one item of a bulk request (a batch chunk) into dst as
// strictly as Decode reads a body (exact keys, no repeated key, no U+0000),
// with the same messages, but returns the
// problems per field for the item's row instead of failing the request; nil
// when the item decoded. An item that is not a JSON object is a problem of
// "item". On a problem dst may hold part of the item.
func DecodeItem(raw json.RawMessage, dst any) map[string][]string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return map[string][]string{"item": {"The item must be a JSON object."}}
	}
	if !json.Valid(raw) {
		return map[string][]string{"item": {"The item contains an invalid value."}}
	}
	if field, msg, ok := checkStrict(raw, reflect.TypeOf(dst)); !ok {
		if field == "body" {
			field, msg = "item", strings.Replace(msg, "The body field", "The item", 1)
		}
		return map[string][]string{field: {msg}}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(dst)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return map[string][]string{te.Field: {"The " + te.Field + " field must be " + jsonKind(te.Type) + "."}}
	}
	if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		f = keyName(strings.Trim(f, `"`))
		return map[string][]string{f: {"The " + f + " field is not allowed."}}
	}
	return map[string][]string{"item": {"The item contains an invalid value."}}
}
