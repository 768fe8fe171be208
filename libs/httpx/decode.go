package httpx

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/apierr"
)

// Decode reads the JSON request body into dst strictly: an empty body is
// read as {}; a body that is not valid JSON is 400 bad_request; valid JSON
// that is not an object, an unknown field or a value of the wrong type is
// 422 validation_failed naming the field. Stricter than encoding/json, a key
// must be exactly a field's JSON name (not the same name in other case), no
// key may appear twice in one object, and no string or key may hold U+0000:
// each is 422 naming the dotted field (steps.1.message, custom_fields.note).
// A body with a Content-Encoding is 415 (CheckEncoding), and the body read
// is always the raw one, never the one Fiber's Ctx.Body would inflate.
func Decode(c *fiber.Ctx, dst any) error {
	if err := CheckEncoding(c); err != nil {
		return err
	}
	return DecodeBytes(c.Request().Body(), dst)
}

// DecodeBytes is Decode for a body already read: the same rules, the same
// errors.
func DecodeBytes(body []byte, dst any) error {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		trimmed = []byte("{}")
	}
	if !json.Valid(trimmed) {
		return apierr.BadRequest("The request body is not valid JSON.")
	}
	if trimmed[0] != '{' {
		return apierr.Field("body", "The request body must be a JSON object.")
	}
	if field, msg, ok := checkStrict(trimmed, reflect.TypeOf(dst)); !ok {
		return apierr.Field(field, msg)
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	// json.Valid accepted the whole body as one value, so one Decode reads it all.
	if err := dec.Decode(dst); err != nil {
		return decodeError(err)
	}
	return nil
}

// decodeError turns an error of encoding/json into the 422 that names the
// offending field.
func decodeError(err error) error {
	var ae *apierr.Error
	if errors.As(err, &ae) {
		return ae
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "body"
		}
		return apierr.Field(field, "The "+field+" field must be "+jsonKind(te.Type)+".")
	}
	if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		f = keyName(strings.Trim(f, `"`))
		return apierr.Field(f, "The "+f+" field is not allowed.")
	}
	return apierr.Field("body", "The request body contains an invalid value.")
}

// jsonKind names the JSON type a Go type expects, with its article.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "a valid value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	default:
		return "a valid value"
	}
}
