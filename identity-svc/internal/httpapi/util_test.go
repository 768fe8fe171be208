package httpapi_test

import (
	"encoding/json"
	"slices"
	"strings"
)

func ptr[T any](v T) *T { return &v }

func keys(m map[string][]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func lower(s string) string { return strings.ToLower(s) }

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
