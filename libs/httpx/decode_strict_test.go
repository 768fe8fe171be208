package httpx_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/httpx"
)

// strictTarget is a body with the shapes request bodies use: strings,
// integers, a nested object, a list of objects, a map of raw values, an
// embedded struct and a raw value.
type strictTarget struct {
	strictEmbedded
	Name    string `json:"name"`
	Amount  int    `json:"amount"`
	Contact *struct {
		Phone string `json:"phone"`
	} `json:"contact"`
	Steps []struct {
		Message string `json:"message"`
	} `json:"steps"`
	CustomFields map[string]json.RawMessage `json:"custom_fields"`
	Raw          json.RawMessage            `json:"raw"`
	Untagged     string
}

type strictEmbedded struct {
	Email string `json:"email"`
}

// TestDecodeStrictKeysAndNUL: a string or key holding U+0000, a key that
// is not exactly a field's JSON name and a key repeated in one object are
// each 422 validation_failed naming the dotted field.
func TestDecodeStrictKeysAndNUL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		body        string
		wantStatus  int
		wantDetails map[string][]string
	}{
		{name: "plain", body: `{"name":"Ada","email":"a@b.c","Untagged":"x","steps":[{"message":"hi"}],"custom_fields":{"a":1,"b":{"c":[1,"x"]}}}`, wantStatus: 200},
		{name: "escaped backslash then u0000 is text", body: `{"name":"a\\u0000"}`, wantStatus: 200},
		{name: "other escapes", body: `{"name":"a\u0001\n\"\u00e9"}`, wantStatus: 200},
		{name: "NUL in top-level string", body: `{"name":"Ada\u0000"}`, wantStatus: 422,
			wantDetails: map[string][]string{"name": {"The name field must not contain the NUL character."}}},
		{name: "NUL after other escapes", body: `{"name":"\\\u00e9\u0000"}`, wantStatus: 422,
			wantDetails: map[string][]string{"name": {"The name field must not contain the NUL character."}}},
		{name: "NUL in embedded field", body: `{"email":"a\u0000@b.c"}`, wantStatus: 422,
			wantDetails: map[string][]string{"email": {"The email field must not contain the NUL character."}}},
		{name: "NUL in nested object", body: `{"contact":{"phone":"+1\u0000"}}`, wantStatus: 422,
			wantDetails: map[string][]string{"contact.phone": {"The contact.phone field must not contain the NUL character."}}},
		{name: "NUL in list item", body: `{"steps":[{"message":"a"},{"message":"\u0000"}]}`, wantStatus: 422,
			wantDetails: map[string][]string{"steps.1.message": {"The steps.1.message field must not contain the NUL character."}}},
		{name: "NUL in custom field value", body: `{"custom_fields":{"note":"x\u0000y"}}`, wantStatus: 422,
			wantDetails: map[string][]string{"custom_fields.note": {"The custom_fields.note field must not contain the NUL character."}}},
		{name: "NUL deep in raw value", body: `{"raw":{"a":[{"b":"\u0000"}]}}`, wantStatus: 422,
			wantDetails: map[string][]string{"raw.a.0.b": {"The raw.a.0.b field must not contain the NUL character."}}},
		{name: "NUL in custom field key", body: `{"custom_fields":{"no\u0000te":"x"}}`, wantStatus: 422,
			wantDetails: map[string][]string{"custom_fields": {"The custom_fields field must not hold a key with the NUL character."}}},
		{name: "NUL in top-level key", body: `{"na\u0000me":"x"}`, wantStatus: 422,
			wantDetails: map[string][]string{"body": {"The body field must not hold a key with the NUL character."}}},
		{name: "surrogate pair is text", body: `{"name":"smile \ud83d\ude00","custom_fields":{"a":"\uD83D\uDE00"}}`, wantStatus: 200},
		{name: "lone high surrogate in custom field", body: `{"custom_fields":{"tier":"\ud83d"}}`, wantStatus: 422,
			wantDetails: map[string][]string{"custom_fields.tier": {"The custom_fields.tier field must be valid UTF-8 text."}}},
		{name: "lone low surrogate", body: `{"name":"a\ude00b"}`, wantStatus: 422,
			wantDetails: map[string][]string{"name": {"The name field must be valid UTF-8 text."}}},
		{name: "reversed pair", body: `{"name":"\ude00\ud83d"}`, wantStatus: 422,
			wantDetails: map[string][]string{"name": {"The name field must be valid UTF-8 text."}}},
		{name: "high surrogate before an escaped backslash", body: `{"name":"\ud83d\\"}`, wantStatus: 422,
			wantDetails: map[string][]string{"name": {"The name field must be valid UTF-8 text."}}},
		{name: "escaped backslash then ud83d is text", body: `{"name":"\\ud83d"}`, wantStatus: 200},
		{name: "bytes that are not UTF-8", body: "{\"raw\":{\"a\":\"x\xffy\"}}", wantStatus: 422,
			wantDetails: map[string][]string{"raw.a": {"The raw.a field must be valid UTF-8 text."}}},
		{name: "key that is not UTF-8", body: "{\"custom_fields\":{\"x\xc0\xaf\":1}}", wantStatus: 422,
			wantDetails: map[string][]string{"custom_fields": {"The custom_fields field must not hold a key that is not valid UTF-8 text."}}},
		{name: "empty key", body: `{"":"x"}`, wantStatus: 422,
			wantDetails: map[string][]string{`""`: {`The "" field is not allowed.`}}},
		{name: "empty key in nested object", body: `{"contact":{"":"x"}}`, wantStatus: 422,
			wantDetails: map[string][]string{`contact.""`: {`The contact."" field is not allowed.`}}},
		{name: "key in other case", body: `{"name":"a","NAME":"b"}`, wantStatus: 422,
			wantDetails: map[string][]string{"NAME": {"The NAME field is not allowed."}}},
		{name: "key in other case alone", body: `{"Amount":5}`, wantStatus: 422,
			wantDetails: map[string][]string{"Amount": {"The Amount field is not allowed."}}},
		{name: "untagged field in other case", body: `{"untagged":"x"}`, wantStatus: 422,
			wantDetails: map[string][]string{"untagged": {"The untagged field is not allowed."}}},
		{name: "nested key in other case", body: `{"contact":{"PHONE":"+1"}}`, wantStatus: 422,
			wantDetails: map[string][]string{"contact.PHONE": {"The contact.PHONE field is not allowed."}}},
		{name: "nested unknown key", body: `{"steps":[{"messages":"x"}]}`, wantStatus: 422,
			wantDetails: map[string][]string{"steps.0.messages": {"The steps.0.messages field is not allowed."}}},
		{name: "duplicate key", body: `{"name":"a","amount":1,"name":"b"}`, wantStatus: 422,
			wantDetails: map[string][]string{"name": {"The name field appears more than once."}}},
		{name: "duplicate key spelt with an escape", body: `{"name":"a","n\u0061me":"b"}`, wantStatus: 422,
			wantDetails: map[string][]string{"name": {"The name field appears more than once."}}},
		{name: "duplicate custom field key", body: `{"custom_fields":{"a":1,"b":2,"a":3}}`, wantStatus: 422,
			wantDetails: map[string][]string{"custom_fields.a": {"The custom_fields.a field appears more than once."}}},
		{name: "duplicate key deep in raw value", body: `{"raw":[{"x":1},{"x":1,"x":2}]}`, wantStatus: 422,
			wantDetails: map[string][]string{"raw.1.x": {"The raw.1.x field appears more than once."}}},
		{name: "same key in sibling objects", body: `{"steps":[{"message":"a"},{"message":"b"}],"raw":{"x":{"x":1}}}`, wantStatus: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			details, isError := postDecode[strictTarget](t, tt.body, tt.wantStatus, apierr.CodeValidationFailed)
			if !isError {
				return
			}
			if diff := cmp.Diff(tt.wantDetails, details); diff != "" {
				t.Errorf("details (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecodeItemsAreLeftToDecodeItem: a bulk body's httpx.Items are not
// checked by Decode, so a NUL or a repeated key in one item becomes that
// item's problems (DecodeItem), not a refusal of the whole request.
func TestDecodeItemsAreLeftToDecodeItem(t *testing.T) {
	t.Parallel()
	raw := []byte(`{"batch_id":"b","items":[{"name":"ok"},{"name":"a\u0000"},{"name":"a","name":"b"},{"NAME":"x"}]}`)
	var body struct {
		BatchID string      `json:"batch_id"`
		Items   httpx.Items `json:"items"`
	}
	if err := httpx.DecodeBytes(raw, &body); err != nil {
		t.Fatalf("DecodeBytes: %v", err)
	}
	want := []map[string][]string{
		nil,
		{"name": {"The name field must not contain the NUL character."}},
		{"name": {"The name field appears more than once."}},
		{"NAME": {"The NAME field is not allowed."}},
	}
	for i, item := range body.Items {
		var dst strictTarget
		if diff := cmp.Diff(want[i], httpx.DecodeItem(item, &dst)); diff != "" {
			t.Errorf("item %d problems (-want +got):\n%s", i, diff)
		}
	}
}
