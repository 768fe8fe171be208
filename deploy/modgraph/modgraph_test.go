package modgraph

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

const prefix = "github.com/paylane/paylane/"

// module is a module of the workspace.
type module struct {
	Path, Dir string
}

// rel is the module's path inside the repository ("contacts-svc/client").
func (m module) rel() string { return strings.TrimPrefix(m.Path, prefix) }

// isClient reports whether m is a service's client module.
func (m module) isClient() bool { return strings.HasSuffix(m.Path, "/client") }

// isService reports whether m is a service module: a folder named *-svc, or
// the gateway.
func (m module) isService() bool {
	r := m.rel()
	return !strings.Contains(r, "/") && (strings.HasSuffix(r, "-svc") || r == "gateway")
}

// goCmd runs the go command in dir and returns its standard output.
func goCmd(t *testing.T, dir string, env []string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, stderr.String())
	}
	return out
}

// workspace returns the modules of the workspace this test runs in.
func workspace(t *testing.T) []module {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(goCmd(t, ".", nil, "list", "-m", "-json")))
	var mods []module
	for {
		var m module
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(m.Path, prefix) {
			mods = append(mods, m)
		}
	}
	if len(mods) < 5 {
		t.Fatalf("workspace modules %v: go.work not found?", mods)
	}
	return mods
}

// owner returns the module that holds package path (the longest module
// path that prefixes it), or false when none of mods does.
func owner(mods []module, path string) (module, bool) {
	var best module
	for _, m := range mods {
		if (path == m.Path || strings.HasPrefix(path, m.Path+"/")) && len(m.Path) > len(best.Path) {
			best = m
		}
	}
	return best, best.Path != ""
}

// pkg is what go list says of a package's imports.
type pkg struct {
	ImportPath                         string
	Module                             *struct{ Path string }
	Imports, TestImports, XTestImports []string
}

// TestServicesImportOnlyLibsAndClients walks every package of every service
// and client module, tests included, and fails on an import of another
// service's module other than its client module (a harness running a
// peer's Run or migrations, a peer's internal package), and on a client
// module importing anything of Paylane but libs.
func TestServicesImportOnlyLibsAndClients(t *testing.T) {
	t.Parallel()
	mods := workspace(t)
	var violations []string
	for _, m := range mods {
		if !m.isService() && !m.isClient() {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(goCmd(t, m.Dir, nil, "list", "-e",
			"-json=ImportPath,Module,Imports,TestImports,XTestImports", "./...")))
		for {
			var p pkg
			if err := dec.Decode(&p); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatal(err)
			}
			if p.Module == nil || p.Module.Path != m.Path {
				continue
			}
			for _, imp := range slices.Concat(p.Imports, p.TestImports, p.XTestImports) {
				if why := forbidden(mods, m, imp); why != "" {
					violations = append(violations, p.ImportPath+" imports "+imp+": "+why)
				}
			}
		}
	}
	sort.Strings(violations)
	violations = slices.Compact(violations)
	for _, v := range violations {
		t.Error(v)
	}
}

// forbidden says why module from may not import imp, or "".
func forbidden(mods []module, from module, imp string) string {
	to, ok := owner(mods, imp)
	switch {
	case !ok || to.Path == from.Path || to.rel() == "libs":
		return ""
	case from.isClient():
		return "a client module imports libs only"
	case to.isClient():
		return ""
	default:
		return "a service imports another service's client module only (" + to.rel() + "/client), never its code, Run or migrations"
	}
}

// TestNoModuleCycle reads the requirements of every module's go.mod and
// fails on a cycle between modules of the workspace (two modules that
// need each other, such as a service and the peer whose code its tests
// ran): one team's rename would break the other's build.
func TestNoModuleCycle(t *testing.T) {
	t.Parallel()
	mods := workspace(t)
	requires := map[string][]string{}
	for _, m := range mods {
		var gomod struct {
			Require []struct{ Path string }
		}
		raw := goCmd(t, m.Dir, []string{"GOWORK=off"}, "mod", "edit", "-json", filepath.Join(m.Dir, "go.mod"))
		if err := json.Unmarshal(raw, &gomod); err != nil {
			t.Fatal(err)
		}
		for _, r := range gomod.Require {
			if strings.HasPrefix(r.Path, prefix) {
				requires[m.Path] = append(requires[m.Path], r.Path)
			}
		}
	}
	for _, cycle := range cycles(requires) {
		t.Errorf("modules require each other: %s", strings.Join(cycle, " -> "))
	}
}

// cycles returns one cycle through each module that is on one, each as the
// path from the module back to itself.
func cycles(edges map[string][]string) [][]string {
	var out [][]string
	seen := map[string]bool{}
	starts := make([]string, 0, len(edges))
	for from := range edges {
		starts = append(starts, from)
	}
	sort.Strings(starts)
	for _, start := range starts {
		if seen[start] {
			continue
		}
		if path := pathBack(edges, start, start, map[string]bool{}); path != nil {
			cycle := append([]string{start}, path...)
			for _, m := range cycle {
				seen[m] = true
			}
			out = append(out, cycle)
		}
	}
	return out
}

// pathBack returns a path of requirements from from to target, or nil.
func pathBack(edges map[string][]string, from, target string, visited map[string]bool) []string {
	for _, next := range edges[from] {
		if next == target {
			return []string{next}
		}
		if visited[next] {
			continue
		}
		visited[next] = true
		if rest := pathBack(edges, next, target, visited); rest != nil {
			return append([]string{next}, rest...)
		}
	}
	return nil
}

func TestCycles(t *testing.T) {
	t.Parallel()
	got := cycles(map[string][]string{"a": {"b", "libs"}, "b": {"c"}, "c": {"a"}, "d": {"libs"}, "e": {"e2"}, "e2": {"e"}})
	want := [][]string{{"a", "b", "c", "a"}, {"e", "e2", "e"}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("cycles = %v, want %v", got, want)
	}
}
