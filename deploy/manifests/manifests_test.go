package manifests

import (
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// repoRoot is the repository root seen from this package's directory.
const repoRoot = "../.."

// built is one `kustomize build` output, split by type.
type built struct {
	dir         string
	namespace   string // the overlay's namespace; "" for the base
	objects     []Object
	deployments []*appsv1.Deployment
	jobs        []*batchv1.Job
	services    []*corev1.Service
	configMaps  []*corev1.ConfigMap
	secrets     []*corev1.Secret
	namespaces  []*corev1.Namespace
	hpas        []*autoscalingv2.HorizontalPodAutoscaler
	pdbs        []*policyv1.PodDisruptionBudget
	policies    []*networkingv1.NetworkPolicy
}

func build(t *testing.T, fsys filesys.FileSystem, dir, namespace string) *built {
	t.Helper()
	objs, err := Build(fsys, dir)
	if err != nil {
		t.Fatalf("building %s: %v", dir, err)
	}
	if len(objs) == 0 {
		t.Fatalf("building %s: no objects", dir)
	}
	return &built{
		dir: dir, namespace: namespace, objects: objs,
		deployments: Of[*appsv1.Deployment](objs),
		jobs:        Of[*batchv1.Job](objs),
		services:    Of[*corev1.Service](objs),
		configMaps:  Of[*corev1.ConfigMap](objs),
		secrets:     Of[*corev1.Secret](objs),
		namespaces:  Of[*corev1.Namespace](objs),
		hpas:        Of[*autoscalingv2.HorizontalPodAutoscaler](objs),
		pdbs:        Of[*policyv1.PodDisruptionBudget](objs),
		policies:    Of[*networkingv1.NetworkPolicy](objs),
	}
}

// overlay is a kustomization operators apply, or the base they share.
type overlay struct {
	name, dir, namespace string
}

// overlays lists the base first, then the overlays.
func overlays() []overlay {
	return []overlay{
		{"base", "deploy/k8s/base", ""},
		{"dev", "deploy/k8s/overlays/dev", "paylane-dev"},
		{"prod", "deploy/k8s/overlays/prod", "paylane"},
	}
}

// TestOverlays builds every overlay, decodes each object strictly into its
// k8s.io/api type (Build fails on unknown fields and kinds) and checks what
// every deployment of Paylane must have.
func TestOverlays(t *testing.T) {
	t.Parallel()
	for _, o := range overlays() {
		t.Run(o.name, func(t *testing.T) {
			t.Parallel()
			b := build(t, filesys.MakeFsOnDisk(), filepath.Join(repoRoot, o.dir), o.namespace)
			checkAll(t, b)
			if o.name == "prod" {
				t.Run("prod", func(t *testing.T) { checkProd(t, b) })
			}
		})
	}
}

// checkAll runs the checks that hold for every overlay (and for a service
// added from the template).
func checkAll(t *testing.T, b *built) {
	t.Helper()
	t.Run("deployments", func(t *testing.T) { checkDeployments(t, b) })
	t.Run("scaling", func(t *testing.T) { checkScaling(t, b) })
	t.Run("services", func(t *testing.T) { checkServices(t, b) })
	t.Run("network policies", func(t *testing.T) { checkNetworkPolicies(t, b) })
	t.Run("peers reachable", func(t *testing.T) { checkPeersReachable(t, b) })
	t.Run("secrets", func(t *testing.T) { checkSecrets(t, b) })
	t.Run("config references", func(t *testing.T) { checkConfigRefs(t, b) })
	t.Run("migrations", func(t *testing.T) { checkMigrations(t, b) })
	t.Run("namespace", func(t *testing.T) { checkNamespace(t, b) })
}

func (b *built) deployment(name string) *appsv1.Deployment {
	for _, d := range b.deployments {
		if d.Name == name {
			return d
		}
	}
	return nil
}

func (b *built) configMap(name string) *corev1.ConfigMap {
	for _, c := range b.configMaps {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// envOf returns the environment a container sees: envFrom ConfigMaps first,
// then env (values of secret references are "secret:<name>/<key>").
func (b *built) envOf(c corev1.Container) map[string]string {
	out := map[string]string{}
	for _, from := range c.EnvFrom {
		if from.ConfigMapRef == nil {
			continue
		}
		if cm := b.configMap(from.ConfigMapRef.Name); cm != nil {
			for k, v := range cm.Data {
				out[from.Prefix+k] = v
			}
		}
	}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil:
			out[e.Name] = "secret:" + e.ValueFrom.SecretKeyRef.Name + "/" + e.ValueFrom.SecretKeyRef.Key
		case e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil:
			if cm := b.configMap(e.ValueFrom.ConfigMapKeyRef.Name); cm != nil {
				out[e.Name] = cm.Data[e.ValueFrom.ConfigMapKeyRef.Key]
			}
		default:
			out[e.Name] = e.Value
		}
	}
	return out
}

func isGateway(name string) bool { return name == "gateway" }

func hasPrefixAny(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
