package httpapi_test

import (
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/optin-svc/internal/httpapi"
)

// fragment is optin-svc's part of the gateway's OpenAPI document: the
// gateway routes only documented paths, so every /api/v1 route must be in
// it, and nothing documented may be missing here.
const fragment = "../../../gateway/openapi/services/optin.yaml"

// TestEveryRouteIsDocumented compares the registered /api/v1 routes with
// the fragment's paths and methods.
func TestEveryRouteIsDocumented(t *testing.T) {
	t.Parallel()
	web := httpx.NewApp(nil)
	httpapi.Register(web, httpapi.Deps{})
	served := testkit.ServedRoutes(web, regexp.MustCompile(`:[A-Za-z]+`))
	want := []string{"DELETE /suppression-list/{}", "GET /opt-in-codes", "GET /opt-in-codes/{}", "GET /opt-ins",
		"GET /suppression-list", "POST /suppression-list"}
	if diff := cmp.Diff(want, served); diff != "" {
		t.Errorf("served routes (-want +got):\n%s", diff)
	}
	documented := testkit.DocumentedOperations(t, fragment, regexp.MustCompile(`\{[A-Za-z_]+\}`))
	if diff := cmp.Diff(documented, served); diff != "" {
		t.Errorf("routes (-documented +served):\n%s", diff)
	}
}
