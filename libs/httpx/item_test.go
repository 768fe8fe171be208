package httpx_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/httpx"
)

func TestDecodeItem(t *testing.T) {
	t.Parallel()
	type item struct {
		Name   *string        `json:"name"`
		Amount *int64         `json:"amount"`
		Tags   []string       `json:"tags"`
		Extra  map[string]any `json:"extra"`
	}
	for _, tc := range []struct {
		name, raw string
		want      map[string][]string
	}{
		{"an object", `{"name":"Ada","amount":5}`, nil},
		{"surrounding space", "  {\"name\":\"Ada\"}\n", nil},
		{"not an object", `["Ada"]`, map[string][]string{"item": {"The item must be a JSON object."}}},
		{"empty", ``, map[string][]string{"item": {"The item must be a JSON object."}}},
		{"a string where a number goes", `{"amount":"5"}`, map[string][]string{"amount": {"The amount field must be an integer."}}},
		{"a number where a string goes", `{"name":5}`, map[string][]string{"name": {"The name field must be a string."}}},
		{"a string where an object goes", `{"extra":"x"}`, map[string][]string{"extra": {"The extra field must be an object."}}},
		{"a string where an array goes", `{"tags":"x"}`, map[string][]string{"tags": {"The tags field must be an array."}}},
		{"an unknown field", `{"nickname":"A"}`, map[string][]string{"nickname": {"The nickname field is not allowed."}}},
		{"broken JSON", `{"name":`, map[string][]string{"item": {"The item contains an invalid value."}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var dst item
			if diff := cmp.Diff(tc.want, httpx.DecodeItem(json.RawMessage(tc.raw), &dst)); diff != "" {
				t.Errorf("DecodeItem(%s) problems (-want +got):\n%s", tc.raw, diff)
			}
		})
	}
}
