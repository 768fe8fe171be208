package manifests

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	aigatewaysvc "github.com/paylane/paylane/ai-gateway-svc"
	batchsvc "github.com/paylane/paylane/batch-svc"
	contactssvc "github.com/paylane/paylane/contacts-svc"
	dashboardsvc "github.com/paylane/paylane/dashboard-svc"
	"github.com/paylane/paylane/gateway"
	identitysvc "github.com/paylane/paylane/identity-svc"
	optinsvc "github.com/paylane/paylane/optin-svc"
	transactionssvc "github.com/paylane/paylane/transactions-svc"
	webhooksvc "github.com/paylane/paylane/webhook-svc"
)

// validator is the Validate method every service's Config has.
type validator interface{ Validate() error }

// fromEnv reads a service's configuration from the process environment as
// its binary does, and validates it.
func fromEnv[C validator](read func() (C, error)) (C, error) {
	cfg, err := read()
	if err != nil {
		return cfg, err
	}
	return cfg, cfg.Validate()
}

// configLoaders reads each service's configuration from the environment the
// way its binary does and adds what the service needs to do its work beyond
// what it needs to start: an optin-svc without SMS_DEFAULT_FROM starts, but
// every message of a tenant without its own sender number fails.
func configLoaders() map[string]func() error {
	return map[string]func() error{
		"identity-svc":     func() error { _, err := fromEnv(identitysvc.ConfigFromEnv); return err },
		"contacts-svc":     func() error { _, err := fromEnv(contactssvc.ConfigFromEnv); return err },
		"transactions-svc": func() error { _, err := fromEnv(transactionssvc.ConfigFromEnv); return err },
		"webhook-svc":      func() error { _, err := fromEnv(webhooksvc.ConfigFromEnv); return err },
		"batch-svc":        func() error { _, err := fromEnv(batchsvc.ConfigFromEnv); return err },
		"ai-gateway-svc":   func() error { _, err := fromEnv(aigatewaysvc.ConfigFromEnv); return err },
		"dashboard-svc":    func() error { _, err := fromEnv(dashboardsvc.ConfigFromEnv); return err },
		"gateway":          func() error { _, err := gateway.ConfigFromEnv(); return err },
		"optin-svc": func() error {
			cfg, err := fromEnv(optinsvc.ConfigFromEnv)
			if err == nil && cfg.SMSDefaultFrom == "" {
				err = errors.New("SMS_DEFAULT_FROM is unset: every message of a tenant without its own sender number would fail with no_sender_number")
			}
			return err
		},
	}
}

// composeEnvs returns the environment compose gives each of Paylane's
// services, with ${VAR:-default} read as its default.
func composeEnvs(t *testing.T) map[string]map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, composeFile))
	if err != nil {
		t.Fatal(err)
	}
	var p composeProject
	if err := yaml.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	interpolation := regexp.MustCompile(`\$\{[A-Z0-9_]+(?::?-([^}]*))?\}`)
	out := map[string]map[string]string{}
	for name, s := range p.Services {
		if s.Build == nil || strings.HasSuffix(name, "-migrate") {
			continue
		}
		env := map[string]string{}
		for k, v := range s.Environment {
			val := ""
			if v != nil {
				val = fmt.Sprint(v)
			}
			env[k] = interpolation.ReplaceAllString(val, "$1")
		}
		out[name] = env
	}
	return out
}

// setEnv makes env the whole environment the service's config reader sees:
// every variable a service reads is unset first, then env is set.
func setEnv(t *testing.T, env map[string]string) {
	t.Helper()
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k != "PATH" && k != "HOME" && k != "TMPDIR" {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
}

// TestEnvironmentsSatisfyTheServices gives each service the environment that
// compose and each Kubernetes overlay give it and reads its configuration
// as its binary would: a variable a service needs that a deployment forgets
// fails here, not on the first day in a cluster. Secret references take the
// value compose gives the same variable (the Secrets are created outside
// the repository).
func TestEnvironmentsSatisfyTheServices(t *testing.T) {
	compose := composeEnvs(t)
	loaders := configLoaders()
	check := func(t *testing.T, name string, env map[string]string) {
		t.Helper()
		load, ok := loaders[name]
		if !ok {
			t.Fatalf("no configuration reader for %s: add it to configLoaders", name)
		}
		setEnv(t, env)
		if err := load(); err != nil {
			t.Errorf("%s with this environment: %v", name, err)
		}
	}
	t.Run("compose", func(t *testing.T) {
		if len(compose) != len(loaders) {
			t.Errorf("compose runs %d services, want the %d with a configuration reader", len(compose), len(loaders))
		}
		for name, env := range compose {
			t.Run(name, func(t *testing.T) { check(t, name, env) })
		}
	})
	for _, o := range overlays() {
		t.Run(o.name, func(t *testing.T) {
			b := build(t, filesys.MakeFsOnDisk(), filepath.Join(repoRoot, o.dir), o.namespace)
			for _, d := range b.deployments {
				t.Run(d.Name, func(t *testing.T) {
					app := d.Spec.Template.Spec.Containers[0]
					optional := map[string]bool{}
					for _, e := range app.Env {
						if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil && e.ValueFrom.SecretKeyRef.Optional != nil {
							optional[e.Name] = *e.ValueFrom.SecretKeyRef.Optional
						}
					}
					env := b.envOf(app)
					for k, v := range env {
						if !strings.HasPrefix(v, "secret:") {
							continue
						}
						cv, ok := compose[d.Name][k]
						switch {
						case !ok && optional[k]:
							delete(env, k) // a key the Secret may leave out
							continue
						case !ok:
							t.Fatalf("%s reads %s from a Secret, and compose gives it no value to test with", d.Name, k)
						}
						env[k] = cv
					}
					check(t, d.Name, env)
				})
			}
		})
	}
}
