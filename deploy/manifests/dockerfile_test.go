package manifests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// TestDockerfile checks the one image recipe: a Go build stage, a static
// binary, a distroless non-root final stage; and that every service the
// manifests run has the cmd folder the Dockerfile builds.
func TestDockerfile(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(repoRoot, "deploy/docker/Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	var froms []string
	var afterLastFrom []string
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "FROM ") {
			froms = append(froms, line)
			afterLastFrom = nil
		}
		afterLastFrom = append(afterLastFrom, line)
	}
	if len(froms) != 2 || !strings.HasPrefix(froms[0], "FROM golang:") {
		t.Errorf("stages %q, want a golang build stage and a final stage", froms)
	}
	if len(froms) > 0 && froms[len(froms)-1] != "FROM gcr.io/distroless/static-debian12:nonroot" {
		t.Errorf("final stage %q, want distroless static nonroot", froms[len(froms)-1])
	}
	final := strings.Join(afterLastFrom, "\n")
	for _, want := range []string{"USER nonroot", `ENTRYPOINT ["/app"]`, "COPY --from=build /out/app /app"} {
		if !strings.Contains(final, want) {
			t.Errorf("final stage lacks %q", want)
		}
	}
	for _, want := range []string{"ARG GO_VERSION=1.26", "ARG SERVICE", "CGO_ENABLED=0", "-trimpath", `-ldflags="-s -w"`, "./${SERVICE}/cmd/${SERVICE}"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}

	ignore, err := os.ReadFile(filepath.Join(repoRoot, ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(ignore), "\n") {
		if line = strings.TrimSpace(line); line == "go.work" || line == "*.go" || line == "**/go.mod" || line == "libs" {
			t.Errorf(".dockerignore drops %q, which the build needs", line)
		}
	}

	b := build(t, filesys.MakeFsOnDisk(), filepath.Join(repoRoot, "deploy/k8s/base"), "")
	for _, d := range b.deployments {
		main := filepath.Join(repoRoot, d.Name, "cmd", d.Name, "main.go")
		if _, err := os.Stat(main); err != nil {
			t.Errorf("Deployment %s: --build-arg SERVICE=%s needs %s: %v", d.Name, d.Name, main, err)
		}
	}
}
