package httpapi_test

import (
	"bufio"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/httpx"
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
	param := regexp.MustCompile(`:[A-Za-z]+`)
	var served []string
	seen := map[string]bool{}
	for _, r := range web.GetRoutes(true) {
		if r.Method == "HEAD" || !strings.HasPrefix(r.Path, "/api/v1/") {
			continue
		}
		p := strings.TrimSuffix(param.ReplaceAllString(strings.TrimPrefix(r.Path, "/api/v1"), "{}"), "/")
		if key := r.Method + " " + p; !seen[key] {
			seen[key] = true
			served = append(served, key)
		}
	}
	sort.Strings(served)
	want := []string{"DELETE /suppression-list/{}", "GET /opt-in-codes", "GET /opt-in-codes/{}", "GET /opt-ins",
		"GET /suppression-list", "POST /suppression-list"}
	if diff := cmp.Diff(want, served); diff != "" {
		t.Errorf("served routes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(documentedOperations(t), served); diff != "" {
		t.Errorf("routes (-documented +served):\n%s", diff)
	}
}

// documentedOperations lists "METHOD /path" of the fragment, path
// parameters written {}.
func documentedOperations(t *testing.T) []string {
	t.Helper()
	f, err := os.Open(fragment)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tmpl := regexp.MustCompile(`\{[A-Za-z_]+\}`)
	method := regexp.MustCompile(`^    (get|post|put|patch|delete):$`)
	var out []string
	path, inPaths := "", false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "paths:":
			inPaths = true
		case !strings.HasPrefix(line, " ") && line != "":
			inPaths = false
		case inPaths && strings.HasPrefix(line, "  /"):
			path = tmpl.ReplaceAllString(strings.TrimSuffix(strings.TrimSpace(line), ":"), "{}")
		case inPaths && method.MatchString(line):
			out = append(out, strings.ToUpper(strings.TrimSuffix(strings.TrimSpace(line), ":"))+" "+path)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}
