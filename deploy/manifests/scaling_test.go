package manifests

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// selects reports whether selector picks pods labelled podLabels.
func selects(t *testing.T, selector *metav1.LabelSelector, podLabels map[string]string) bool {
	t.Helper()
	sel, err := metav1.LabelSelectorAsSelector(selector)
	if err != nil {
		t.Fatalf("label selector %v: %v", selector, err)
	}
	return !sel.Empty() && sel.Matches(labels.Set(podLabels))
}

// checkScaling: every Deployment scales on its own (an HPA) and survives
// voluntary disruptions (a PDB that selects its pods and only them).
func checkScaling(t *testing.T, b *built) {
	for _, d := range b.deployments {
		t.Run(d.Name, func(t *testing.T) {
			var hpas int
			for _, h := range b.hpas {
				ref := h.Spec.ScaleTargetRef
				if ref.APIVersion != "apps/v1" || ref.Kind != "Deployment" || ref.Name != d.Name {
					continue
				}
				hpas++
				if h.Spec.MinReplicas == nil || *h.Spec.MinReplicas < 1 || h.Spec.MaxReplicas < *h.Spec.MinReplicas {
					t.Errorf("HPA %s: replicas %v..%d", h.Name, h.Spec.MinReplicas, h.Spec.MaxReplicas)
				}
				if len(h.Spec.Metrics) == 0 {
					t.Errorf("HPA %s: no metrics", h.Name)
				}
			}
			if hpas != 1 {
				t.Errorf("%d HorizontalPodAutoscalers target the Deployment, want 1", hpas)
			}
			checkPDB(t, b, d)
		})
	}
}

func checkPDB(t *testing.T, b *built, d *appsv1.Deployment) {
	t.Helper()
	var pdbs int
	for _, p := range b.pdbs {
		if !selects(t, p.Spec.Selector, d.Spec.Template.Labels) {
			continue
		}
		pdbs++
		if p.Spec.MaxUnavailable == nil && p.Spec.MinAvailable == nil {
			t.Errorf("PDB %s sets neither maxUnavailable nor minAvailable", p.Name)
		}
		if p.Spec.MinAvailable != nil && p.Spec.MinAvailable.Type == intstr.Int && p.Spec.MinAvailable.IntVal >= 1 {
			t.Errorf("PDB %s: minAvailable %s blocks node drains of a one-replica dev cluster; use maxUnavailable", p.Name, p.Spec.MinAvailable.String())
		}
		for _, other := range b.deployments {
			if other.Name != d.Name && selects(t, p.Spec.Selector, other.Spec.Template.Labels) {
				t.Errorf("PDB %s also selects the pods of %s", p.Name, other.Name)
			}
		}
	}
	if pdbs != 1 {
		t.Errorf("%d PodDisruptionBudgets select the pods, want 1", pdbs)
	}
}

// checkServices: every Service selects the pods of exactly one Deployment,
// never a migrate Job's, and targets ports those pods declare.
func checkServices(t *testing.T, b *built) {
	for _, s := range b.services {
		t.Run(s.Name, func(t *testing.T) {
			sel := &metav1.LabelSelector{MatchLabels: s.Spec.Selector}
			var target *appsv1.Deployment
			for _, d := range b.deployments {
				if selects(t, sel, d.Spec.Template.Labels) {
					if target != nil {
						t.Errorf("selects the pods of %s and %s", target.Name, d.Name)
					}
					target = d
				}
			}
			for _, j := range b.jobs {
				if selects(t, sel, j.Spec.Template.Labels) {
					t.Errorf("selects the pods of Job %s", j.Name)
				}
			}
			if target == nil {
				t.Fatal("selects no Deployment's pods")
			}
			for _, p := range s.Spec.Ports {
				if !servesPort(target.Spec.Template.Spec.Containers, p) {
					t.Errorf("port %s targets %s, which no container of %s declares", p.Name, p.TargetPort.String(), target.Name)
				}
			}
			if s.Spec.Type == corev1.ServiceTypeLoadBalancer || s.Spec.Type == corev1.ServiceTypeNodePort {
				checkExposed(t, s, target)
			}
		})
	}
}

func servesPort(containers []corev1.Container, p corev1.ServicePort) bool {
	target := p.TargetPort
	if target.Type == intstr.Int && target.IntVal == 0 {
		target = intstr.FromInt32(p.Port)
	}
	for _, c := range containers {
		if containerPort(c, target) != 0 {
			return true
		}
	}
	return false
}

// checkExposed: only the gateway's public port leaves the cluster.
func checkExposed(t *testing.T, s *corev1.Service, target *appsv1.Deployment) {
	t.Helper()
	if !isGateway(target.Name) {
		t.Errorf("%s Service exposes %s outside the cluster; only the gateway may be", s.Spec.Type, target.Name)
	}
	for _, p := range s.Spec.Ports {
		if p.TargetPort.String() != "public" {
			t.Errorf("%s Service exposes port %s; only the public port may leave the cluster", s.Spec.Type, p.TargetPort.String())
		}
	}
}
