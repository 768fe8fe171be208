package manifests

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// memRepo copies deploy/k8s into an in-memory file system at /deploy/k8s.
func memRepo(t *testing.T) filesys.FileSystem {
	t.Helper()
	mem := filesys.MakeFsInMemory()
	root := filepath.Join(repoRoot, "deploy/k8s")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		return mem.WriteFile(path.Join("/deploy/k8s", filepath.ToSlash(rel)), data)
	})
	if err != nil {
		t.Fatalf("copying deploy/k8s: %v", err)
	}
	return mem
}

func readMem(t *testing.T, mem filesys.FileSystem, p string) string {
	t.Helper()
	data, err := mem.ReadFile(p)
	if err != nil {
		t.Fatalf("reading %s: %v", p, err)
	}
	return string(data)
}

func writeMem(t *testing.T, mem filesys.FileSystem, p, content string) {
	t.Helper()
	if err := mem.WriteFile(p, []byte(content)); err != nil {
		t.Fatalf("writing %s: %v", p, err)
	}
}

// addService follows docs/operations.md, "Adding a service": copy the
// template folder, rename example-svc, add one line to the base. edit may
// change the copied files (name → content) before they are written.
func addService(t *testing.T, mem filesys.FileSystem, name string, edit func(file, content string) string) {
	t.Helper()
	const tpl = "/deploy/k8s/templates/service"
	files, err := mem.ReadDir(tpl)
	if err != nil {
		t.Fatalf("listing the template: %v", err)
	}
	for _, f := range files {
		content := strings.ReplaceAll(readMem(t, mem, path.Join(tpl, f)), "example-svc", name)
		if edit != nil {
			content = edit(f, content)
		}
		writeMem(t, mem, path.Join("/deploy/k8s/base/services", name, f), content)
	}
	const base = "/deploy/k8s/base/kustomization.yaml"
	k := readMem(t, mem, base)
	const anchor = "  - services/gateway\n"
	if !strings.Contains(k, anchor) {
		t.Fatalf("base kustomization lacks %q", anchor)
	}
	writeMem(t, mem, base, strings.Replace(k, anchor, anchor+"  - services/"+name+"\n", 1))
}

// TestTemplateAddsAService adds two services from the template, one calling
// the other, and checks that both come out with everything a Paylane
// service must have, reachable as intended. Their names are not real
// services', so the check keeps working as real ones join the base.
func TestTemplateAddsAService(t *testing.T) {
	t.Parallel()
	mem := memRepo(t)
	addService(t, mem, "example-callee-svc", nil)
	addService(t, mem, "example-caller-svc", func(file, content string) string {
		if file != "deployment.yaml" {
			return content
		}
		line := "        calls.paylane.io/identity-svc: \"true\"\n"
		return strings.Replace(content, line, line+"        calls.paylane.io/example-callee-svc: \"true\"\n", 1)
	})
	const prod = "/deploy/k8s/overlays/prod/kustomization.yaml"
	images := "images:\n"
	for _, name := range []string{"example-callee-svc", "example-caller-svc"} {
		images += "  - name: paylane/" + name + "\n    newName: registry.example.com/paylane/" + name + "\n    newTag: 0.1.0\n"
	}
	writeMem(t, mem, prod, strings.Replace(readMem(t, mem, prod), "images:\n", images, 1))

	for _, o := range overlays()[1:] {
		t.Run(o.name, func(t *testing.T) {
			b := build(t, mem, "/"+o.dir, o.namespace)
			checkAll(t, b)
			if o.name == "prod" {
				checkProd(t, b)
			}
			for _, name := range []string{"example-callee-svc", "example-caller-svc"} {
				want := map[string]string{
					"Deployment": name, "Service": name, "HorizontalPodAutoscaler": name,
					"PodDisruptionBudget": name, "NetworkPolicy": name, "Job": name + "-migrate",
					"ServiceAccount": name, "ConfigMap": name + "-config-",
				}
				for kind, objName := range want {
					if !hasObject(b, kind, objName) {
						t.Errorf("%s: no %s %s in the output", name, kind, objName)
					}
				}
			}
		})
	}
}

// hasObject finds kind/name; a name ending in "-" is a generated prefix.
func hasObject(b *built, kind, name string) bool {
	for _, o := range b.objects {
		if o.GVK.Kind == kind && (o.Name == name || strings.HasSuffix(name, "-") && strings.HasPrefix(o.Name, name)) {
			return true
		}
	}
	return false
}
