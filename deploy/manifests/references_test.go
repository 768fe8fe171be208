package manifests

import (
	"path"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// sensitive names configuration that must come from a Secret, never from a
// ConfigMap or a literal value in the manifests.
func sensitive(name string) bool {
	switch name {
	case "DATABASE_URL", "MIGRATE_DATABASE_URL", "SIGNING_KEY", "ADMIN_TOKEN", "REDIS_URL", "CONSUL_HTTP_TOKEN":
		return true
	}
	return strings.Contains(name, "PASSWORD") || strings.Contains(name, "SECRET")
}

// containers returns every container of every Deployment and Job, by owner.
func (b *built) containers() map[string][]corev1.Container {
	out := map[string][]corev1.Container{}
	for _, d := range b.deployments {
		out["Deployment/"+d.Name] = d.Spec.Template.Spec.Containers
	}
	for _, j := range b.jobs {
		out["Job/"+j.Name] = j.Spec.Template.Spec.Containers
	}
	return out
}

// checkSecrets: the output carries references to Secrets, never values.
func checkSecrets(t *testing.T, b *built) {
	for _, s := range b.secrets {
		if len(s.Data) > 0 || len(s.StringData) > 0 {
			t.Errorf("Secret %s carries values; manifests only reference Secrets", s.Name)
		}
	}
	for _, cm := range b.configMaps {
		for k := range cm.Data {
			if sensitive(k) {
				t.Errorf("ConfigMap %s holds %s, which belongs in a Secret", cm.Name, k)
			}
		}
	}
	for owner, cs := range b.containers() {
		for _, c := range cs {
			for _, e := range c.Env {
				if sensitive(e.Name) && (e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil) {
					t.Errorf("%s sets %s without a secretKeyRef", owner, e.Name)
				}
			}
		}
	}
}

// checkConfigRefs: every ConfigMap a container reads exists in the output.
func checkConfigRefs(t *testing.T, b *built) {
	for owner, cs := range b.containers() {
		for _, c := range cs {
			for _, from := range c.EnvFrom {
				switch {
				case from.ConfigMapRef != nil && b.configMap(from.ConfigMapRef.Name) == nil:
					t.Errorf("%s reads ConfigMap %s, which the output lacks", owner, from.ConfigMapRef.Name)
				case from.SecretRef != nil:
					t.Errorf("%s imports a whole Secret (%s); reference each key so the docs can list them", owner, from.SecretRef.Name)
				}
			}
			for _, e := range c.Env {
				if e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil {
					cm := b.configMap(e.ValueFrom.ConfigMapKeyRef.Name)
					if cm == nil || !hasKey(cm.Data, e.ValueFrom.ConfigMapKeyRef.Key) {
						t.Errorf("%s reads %s from ConfigMap %s, which lacks it", owner, e.Name, e.ValueFrom.ConfigMapKeyRef.Name)
					}
				}
			}
		}
	}
}

// checkMigrations: a service with a database has a migrate Job running the
// same image with `migrate` and the owner DSN; the Deployment itself never
// gets the owner DSN (migrations are the Job's, not every replica's).
func checkMigrations(t *testing.T, b *built) {
	for _, d := range b.deployments {
		t.Run(d.Name, func(t *testing.T) {
			app := d.Spec.Template.Spec.Containers[0]
			env := b.envOf(app)
			if _, ok := env["MIGRATE_DATABASE_URL"]; ok {
				t.Error("the Deployment gets MIGRATE_DATABASE_URL; only the migrate Job may")
			}
			if _, ok := env["DATABASE_URL"]; !ok {
				return
			}
			var job *corev1.PodSpec
			for _, j := range b.jobs {
				if j.Name == d.Name+"-migrate" {
					job = &j.Spec.Template.Spec
				}
			}
			if job == nil {
				t.Fatalf("has DATABASE_URL but no Job %s-migrate", d.Name)
			}
			checkMigrateJob(t, b, app, *job)
		})
	}
}

func checkMigrateJob(t *testing.T, b *built, app corev1.Container, job corev1.PodSpec) {
	t.Helper()
	if job.RestartPolicy != corev1.RestartPolicyNever && job.RestartPolicy != corev1.RestartPolicyOnFailure {
		t.Errorf("migrate Job restartPolicy %q", job.RestartPolicy)
	}
	checkPodSecurity(t, job)
	if len(job.Containers) != 1 {
		t.Fatalf("migrate Job has %d containers, want 1", len(job.Containers))
	}
	c := job.Containers[0]
	checkContainer(t, c)
	if c.Image != app.Image {
		t.Errorf("migrate Job image %q differs from the Deployment's %q", c.Image, app.Image)
	}
	if !slices.Equal(c.Args, []string{"migrate"}) || len(c.Command) > 0 {
		t.Errorf("migrate Job runs command %v args %v, want the image's entrypoint with args [migrate]", c.Command, c.Args)
	}
	env := b.envOf(c)
	for _, name := range []string{"MIGRATE_DATABASE_URL", "DATABASE_URL"} {
		if !strings.HasPrefix(env[name], "secret:") {
			t.Errorf("migrate Job lacks %s from a Secret (got %q)", name, env[name])
		}
	}
}

// checkNamespace: an overlay puts everything in its namespace and creates it
// with the restricted Pod Security Standard enforced.
func checkNamespace(t *testing.T, b *built) {
	if b.namespace == "" {
		if len(b.namespaces) > 0 {
			t.Error("the base creates a Namespace; overlays choose it")
		}
		return
	}
	var found bool
	for _, ns := range b.namespaces {
		if ns.Name == b.namespace {
			found = true
			if got := ns.Labels["pod-security.kubernetes.io/enforce"]; got != "restricted" {
				t.Errorf("Namespace %s enforces %q, want restricted", ns.Name, got)
			}
		}
	}
	if !found {
		t.Errorf("no Namespace %s in the output", b.namespace)
	}
	for _, o := range b.objects {
		if o.GVK.Kind != "Namespace" && o.Namespace != b.namespace {
			t.Errorf("%s %s is in namespace %q, want %q", o.GVK.Kind, o.Name, o.Namespace, b.namespace)
		}
	}
}

// checkProd: release images, TLS on the gateway, shared rate limits.
func checkProd(t *testing.T, b *built) {
	for owner, cs := range b.containers() {
		for _, c := range cs {
			host, _, _ := strings.Cut(c.Image, "/")
			if !strings.Contains(host, ".") || strings.HasSuffix(c.Image, ":dev") {
				t.Errorf("%s runs %q: production pins a release image from a registry (overlays/prod images)", owner, c.Image)
			}
		}
	}
	gw := b.deployment("gateway")
	if gw == nil {
		t.Fatal("no gateway Deployment")
	}
	c := gw.Spec.Template.Spec.Containers[0]
	env := b.envOf(c)
	if env["TLS_CERT_FILE"] == "" || env["TLS_KEY_FILE"] == "" {
		t.Fatalf("gateway without TLS_CERT_FILE/TLS_KEY_FILE: %v", env)
	}
	var mounted bool
	for _, m := range c.VolumeMounts {
		if m.MountPath == path.Dir(env["TLS_CERT_FILE"]) && m.MountPath == path.Dir(env["TLS_KEY_FILE"]) {
			mounted = true
		}
	}
	if !mounted {
		t.Errorf("no volume mounted where TLS_CERT_FILE (%s) points", env["TLS_CERT_FILE"])
	}
	for _, e := range c.Env {
		if e.Name == "REDIS_URL" && (e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil || e.ValueFrom.SecretKeyRef.Optional == nil || *e.ValueFrom.SecretKeyRef.Optional) {
			t.Error("REDIS_URL is optional in production; replicas would count rate limits apart")
		}
	}
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}
