package manifests

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// TestOperationsDoc keeps docs/operations.md in step with the manifests:
// every variable a container or compose service gets is in the
// configuration reference, every Secret key is in the Secrets table, every
// service has its section linking its README, and the kustomize command is
// there.
func TestOperationsDoc(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(repoRoot, "docs/operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	documented := func(name string) bool { return strings.Contains(doc, "`"+name+"`") }

	for _, o := range overlays() {
		b := build(t, filesys.MakeFsOnDisk(), filepath.Join(repoRoot, o.dir), o.namespace)
		for owner, cs := range b.containers() {
			for _, c := range cs {
				for name, value := range b.envOf(c) {
					if !documented(name) {
						t.Errorf("%s (%s): variable %s is not in docs/operations.md", o.name, owner, name)
					}
					if secret, key, ok := strings.Cut(strings.TrimPrefix(value, "secret:"), "/"); ok && strings.HasPrefix(value, "secret:") && !secretRow(doc, secret, key) {
						t.Errorf("%s (%s): Secret %s key %s has no row in the Secrets table", o.name, owner, secret, key)
					}
				}
			}
		}
		if o.name == "base" {
			for _, d := range b.deployments {
				section := "### " + d.Name + "\n"
				link := "(../" + d.Name + "/README.md)"
				if i := strings.LastIndex(doc, section); i < 0 || !strings.Contains(doc[i:], link) {
					t.Errorf("no section %q linking %s", strings.TrimSpace(section), link)
				}
			}
		}
	}
	for _, name := range composeAppVariables(t) {
		if !documented(name) {
			t.Errorf("compose: variable %s is not in docs/operations.md", name)
		}
	}
	for _, want := range []string{
		"go run sigs.k8s.io/kustomize/kustomize/v5@v5.8.2 build deploy/k8s/overlays/dev",
		"`CONSUL_HTTP_ADDR`", "`CONSUL_HTTP_TOKEN`", "Strimzi", "CloudNativePG",
		"### A webhook endpoint was disabled", "### A batch is stuck", "### Kafka is down",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("docs/operations.md lacks %q", want)
		}
	}
}

// secretRow finds a table row naming both the Secret and the key.
func secretRow(doc, secret, key string) bool {
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, "| `"+secret+"` |") && strings.Contains(line, "`"+key+"`") {
			return true
		}
	}
	return false
}

// composeAppVariables lists the variables compose gives Paylane's own
// services (the infrastructure images' variables are theirs to document).
func composeAppVariables(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, composeFile))
	if err != nil {
		t.Fatal(err)
	}
	var p composeProject
	if err := yaml.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range p.Services {
		if s.Build == nil {
			continue
		}
		for name := range s.Environment {
			out = append(out, name)
		}
	}
	for _, m := range regexp.MustCompile(`\$\{([A-Z0-9_]+)`).FindAllStringSubmatch(string(data), -1) {
		out = append(out, m[1])
	}
	return out
}
