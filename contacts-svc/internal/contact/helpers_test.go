package contact_test

import (
	"encoding/json"
	"strings"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func sorted() cmp.Option {
	return cmpopts.SortSlices(func(a, b string) bool { return strings.Compare(a, b) < 0 })
}

func rawJSON() cmp.Option {
	return cmp.Comparer(func(a, b json.RawMessage) bool { return string(a) == string(b) })
}
