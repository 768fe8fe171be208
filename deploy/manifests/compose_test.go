package manifests

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

const composeFile = "deploy/compose/docker-compose.yml"

type composeProject struct {
	Services map[string]composeService `json:"services"`
}

type composeService struct {
	Image string `json:"image"`
	Build *struct {
		Context    string            `json:"context"`
		Dockerfile string            `json:"dockerfile"`
		Args       map[string]string `json:"args"`
	} `json:"build"`
	Command     []string       `json:"command"`
	Environment map[string]any `json:"environment"`
	DependsOn   map[string]struct {
		Condition string `json:"condition"`
	} `json:"depends_on"`
	Ports    []string `json:"ports"`
	ReadOnly bool     `json:"read_only"`
	CapDrop  []string `json:"cap_drop"`
}

// dockerCompose reports whether the docker CLI with its compose plugin is
// here (the engine is not needed for `config`).
func dockerCompose(ctx context.Context) bool {
	if _, err := exec.LookPath("docker"); err != nil {
		return false
	}
	return exec.CommandContext(ctx, "docker", "compose", "version").Run() == nil
}

// TestComposeFile checks deploy/compose: `docker compose config` where the
// compose CLI exists; everywhere, that the file parses and runs the
// infrastructure plus every service of the Kubernetes base, built from the
// one Dockerfile, migrated by a one-shot `migrate` container first.
func TestComposeFile(t *testing.T) {
	t.Parallel()
	file := filepath.Join(repoRoot, composeFile)
	if dockerCompose(t.Context()) {
		out, err := exec.CommandContext(t.Context(), "docker", "compose", "-f", file, "config", "--quiet").CombinedOutput()
		if err != nil {
			t.Fatalf("docker compose config: %v\n%s", err, out)
		}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var p composeProject
	if err := yaml.Unmarshal(data, &p); err != nil {
		t.Fatalf("parsing %s: %v", composeFile, err)
	}
	for _, infra := range []string{"postgres", "kafka", "redis", "consul"} {
		if s, ok := p.Services[infra]; !ok || s.Image == "" {
			t.Errorf("no %s service with an image", infra)
		}
	}
	if roles, _ := p.Services["kafka"].Environment["KAFKA_PROCESS_ROLES"].(string); roles != "broker,controller" {
		t.Errorf("kafka KAFKA_PROCESS_ROLES = %q, want a single KRaft node (broker,controller)", roles)
	}
	b := build(t, filesys.MakeFsOnDisk(), filepath.Join(repoRoot, "deploy/k8s/base"), "")
	for _, d := range b.deployments {
		t.Run(d.Name, func(t *testing.T) {
			s, ok := p.Services[d.Name]
			if !ok {
				t.Fatalf("the Kubernetes base runs %s, the compose file does not", d.Name)
			}
			checkComposeService(t, d.Name, s)
			if hasObject(b, "Job", d.Name+"-migrate") {
				checkComposeMigrate(t, d.Name, p)
			}
		})
	}
	checkComposeGraph(t, p)
}

func checkComposeService(t *testing.T, name string, s composeService) {
	t.Helper()
	if s.Build == nil || s.Build.Dockerfile != "deploy/docker/Dockerfile" || s.Build.Context != "../.." || s.Build.Args["SERVICE"] != name {
		t.Errorf("build = %+v, want deploy/docker/Dockerfile from the repository root with SERVICE=%s", s.Build, name)
	}
	if s.Image != "paylane/"+name+":dev" {
		t.Errorf("image = %q, want paylane/%s:dev (what the dev overlay runs)", s.Image, name)
	}
	if !s.ReadOnly || !slices.Equal(s.CapDrop, []string{"ALL"}) {
		t.Errorf("read_only %v, cap_drop %v: want the hardening of the Kubernetes manifests", s.ReadOnly, s.CapDrop)
	}
	if s.Environment["CONSUL_HTTP_ADDR"] == nil {
		t.Error("no CONSUL_HTTP_ADDR: services in compose find each other through Consul")
	}
}

func checkComposeMigrate(t *testing.T, name string, p composeProject) {
	t.Helper()
	m, ok := p.Services[name+"-migrate"]
	if !ok {
		t.Fatalf("no %s-migrate service", name)
	}
	if !slices.Equal(m.Command, []string{"migrate"}) || m.Image != p.Services[name].Image {
		t.Errorf("%s-migrate runs %q %v, want the service's image with [migrate]", name, m.Image, m.Command)
	}
	if m.Environment["MIGRATE_DATABASE_URL"] == nil || m.Environment["DATABASE_URL"] == nil {
		t.Errorf("%s-migrate lacks MIGRATE_DATABASE_URL or DATABASE_URL", name)
	}
	if got := p.Services[name].DependsOn[name+"-migrate"].Condition; got != "service_completed_successfully" {
		t.Errorf("%s waits for its migration with condition %q, want service_completed_successfully", name, got)
	}
	if v, _ := p.Services[name].Environment["MIGRATE_DATABASE_URL"].(string); v != "" {
		t.Errorf("%s itself gets MIGRATE_DATABASE_URL %q; the migrate container runs migrations", name, v)
	}
}

// checkComposeGraph: dependencies exist, and only the gateway publishes a
// port beyond the loopback interface.
func checkComposeGraph(t *testing.T, p composeProject) {
	t.Helper()
	for name, s := range p.Services {
		for dep := range s.DependsOn {
			if _, ok := p.Services[dep]; !ok {
				t.Errorf("%s depends on %s, which is not a service", name, dep)
			}
		}
		for _, port := range s.Ports {
			if !strings.HasPrefix(port, "127.0.0.1:") && !(isGateway(name) && port == "8443:8443") {
				t.Errorf("%s publishes %q on every interface; only the gateway's public port may", name, port)
			}
		}
	}
}
