package openapi_test

import (
	"encoding/json"
	"testing"

	"github.com/paylane/paylane/gateway/openapi"
	"github.com/paylane/paylane/libs/authz"
)

// TestEveryOperationDeclaresAKnownAbility: x-paylane-ability is on every
// operation, a string or a list of strings, each one an ability authz
// knows; only the health probe and the document itself need none.
func TestEveryOperationDeclaresAKnownAbility(t *testing.T) {
	t.Parallel()
	b, err := openapi.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	noAbility := map[string]bool{"healthcheck": true, "getOpenAPIDocument": true}
	cat := authz.NewCatalogue()
	ops := 0
	for path, item := range doc.Paths {
		for method, raw := range item {
			if method == "parameters" || method == "summary" || method == "description" {
				continue
			}
			ops++
			var op struct {
				ID      string          `json:"operationId"`
				Ability json.RawMessage `json:"x-paylane-ability"`
			}
			if err := json.Unmarshal(raw, &op); err != nil {
				t.Fatalf("%s %s: %v", method, path, err)
			}
			if len(op.Ability) == 0 {
				t.Errorf("%s %s (%s): no x-paylane-ability", method, path, op.ID)
				continue
			}
			var list []string
			var one string
			if json.Unmarshal(op.Ability, &one) == nil {
				list = []string{one}
			} else if err := json.Unmarshal(op.Ability, &list); err != nil {
				t.Errorf("%s %s (%s): x-paylane-ability %s is neither a string nor a list of strings", method, path, op.ID, op.Ability)
				continue
			}
			if len(list) == 0 && !noAbility[op.ID] {
				t.Errorf("%s %s (%s): x-paylane-ability is empty", method, path, op.ID)
			}
			for _, a := range list {
				if !cat.Known(a) {
					t.Errorf("%s %s (%s): x-paylane-ability %q is not an ability authz knows", method, path, op.ID, a)
				}
			}
		}
	}
	if ops < 70 {
		t.Errorf("%d operations found; the document lists more", ops)
	}
}
