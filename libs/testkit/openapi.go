package testkit

import (
	"bufio"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
)

// ServedRoutes lists, sorted and once each, "METHOD /path" of the app's
// /api/v1 routes without the prefix, HEAD left out and every path
// parameter that param matches written {}.
func ServedRoutes(app *fiber.App, param *regexp.Regexp) []string {
	var served []string
	seen := map[string]bool{}
	for _, r := range app.GetRoutes(true) {
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
	return served
}

// DocumentedOperations lists, sorted, "METHOD /path" of an OpenAPI
// fragment's paths, every path template that tmpl matches written {}.
func DocumentedOperations(t testing.TB, fragment string, tmpl *regexp.Regexp) []string {
	t.Helper()
	f, err := os.Open(fragment)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
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
