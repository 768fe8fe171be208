package httpapi_test

import (
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/transactions-svc/internal/httpapi"
)

// fragment is this service's part of the gateway's OpenAPI document: the
// gateway routes only documented paths, so every route must be in it.
const fragment = "../../../gateway/openapi/services/transactions.yaml"

// TestEveryRouteIsDocumented compares the registered /api/v1 routes with
// the fragment's paths and methods.
func TestEveryRouteIsDocumented(t *testing.T) {
	t.Parallel()
	web := httpx.NewApp(nil)
	httpapi.Register(web, httpapi.Deps{})
	served := testkit.ServedRoutes(web, regexp.MustCompile(`:[a-z]+`))
	documented := testkit.DocumentedOperations(t, fragment, regexp.MustCompile(`\{[a-z_]+\}`))
	if len(served) < 35 {
		t.Fatalf("only %d routes served", len(served))
	}
	if diff := cmp.Diff(documented, served); diff != "" {
		t.Errorf("routes (-documented +served):\n%s", diff)
	}
}
