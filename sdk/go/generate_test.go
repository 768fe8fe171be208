package paylane_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The commands of generate.go, with the files they write. The test runs them
// writing to a temporary directory instead.
const (
	documentCmd  = "go run github.com/paylane/paylane/gateway/cmd/openapi -o openapi.json"
	generatorCmd = "go run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2 -config oapi-codegen.yaml -o paylane.gen.go openapi.json"
)

// TestGeneratedCodeIsCurrent regenerates the SDK as `make sdk` does, from the
// document the gateway serves now, and fails when paylane.gen.go differs: an
// API change without `make sdk`, or a hand edit of generated code. It needs
// the workspace (the document comes from the gateway module) and the module
// proxy or cache for oapi-codegen.
func TestGeneratedCodeIsCurrent(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("generate.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{documentCmd, generatorCmd} {
		if !strings.Contains(string(src), "//go:generate "+cmd+"\n") {
			t.Fatalf("generate.go does not run %q: keep the test's commands equal to its go:generate lines", cmd)
		}
	}
	dir := t.TempDir()
	doc, gen := filepath.Join(dir, "openapi.json"), filepath.Join(dir, "paylane.gen.go")
	run(t, strings.Replace(documentCmd, "-o openapi.json", "-o "+doc, 1))
	run(t, strings.Replace(generatorCmd, "-o paylane.gen.go openapi.json", "-o "+gen+" "+doc, 1))

	want, err := os.ReadFile(gen)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("paylane.gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, got) {
		t.Fatalf("paylane.gen.go is not what the generator makes of the served document (%d bytes, generated %d): run `make sdk` and commit the result\n%s",
			len(got), len(want), firstDifference(want, got))
	}
	if len(got) > 900<<10 {
		t.Errorf("paylane.gen.go is %d KB: keep the generated SDK well under 1 MB (overlay.yaml)", len(got)>>10)
	}
}

// TestServedDocumentGeneratesWithDefaults: what any user of oapi-codegen
// v2.8.2 would do with the served document, client and types with no other
// setting (no overlay, components pruned by what paths reference), gives
// code that compiles. Older releases failed on 3.1 type arrays, and a
// webhook body referenced only from the webhooks section would be pruned
// and then named.
func TestServedDocumentGeneratesWithDefaults(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	doc := filepath.Join(dir, "openapi.json")
	run(t, strings.Replace(documentCmd, "-o openapi.json", "-o "+doc, 1))
	mod := filepath.Join(dir, "client")
	if err := os.MkdirAll(mod, 0o755); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile("go.sum")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"config.yaml": "package: client\ngenerate:\n  client: true\n  models: true\n",
		"go.mod":      "module example.com/client\n\ngo 1.26.0\n\nrequire github.com/oapi-codegen/runtime v1.9.0\n",
		"go.sum":      string(sum),
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(mod, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gen := filepath.Join(mod, "client.gen.go")
	run(t, strings.Replace(generatorCmd, "-config oapi-codegen.yaml -o paylane.gen.go openapi.json",
		"-config "+filepath.Join(mod, "config.yaml")+" -o "+gen+" "+doc, 1))
	build := exec.Command("go", "build", "./...")
	build.Dir = mod
	build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("the client oapi-codegen generates from the served document with default settings does not compile: %v\n%s", err, out)
	}
}

func run(t *testing.T, command string) {
	t.Helper()
	args := strings.Fields(command)
	cmd := exec.Command(args[0], args[1:]...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", command, err, out.Bytes())
	}
}

// firstDifference shows the first line where want and got differ.
func firstDifference(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\n  generated: %s\n  committed: %s", i+1, wl, gl)
		}
	}
	return ""
}
