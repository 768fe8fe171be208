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
	param := regexp.MustCompile(`:[a-z]+`)
	var served []string
	seen := map[string]bool{}
	for _, r := range web.GetRoutes(true) {
		if r.Method == "HEAD" || !strings.HasPrefix(r.Path, "/api/v1/") {
			continue
		}
		p := strings.TrimSuffix(param.ReplaceAllString(strings.TrimPrefix(r.Path, "/api/v1"), "{}"), "/")
		key := r.Method + " " + p
		if !seen[key] {
			seen[key] = true
			served = append(served, key)
		}
	}
	sort.Strings(served)
	documented := documentedOperations(t)
	if len(served) < 35 {
		t.Fatalf("only %d routes served", len(served))
	}
	if diff := cmp.Diff(documented, served); diff != "" {
		t.Errorf("routes (-documented +served):\n%s", diff)
	}
}

func documentedOperations(t *testing.T) []string {
	t.Helper()
	f, err := os.Open(fragment)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tmpl := regexp.MustCompile(`\{[a-z_]+\}`)
	var out []string
	method := regexp.MustCompile(`^    (get|post|put|patch|delete):$`)
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
	sort.Strings(out)
	return out
}
