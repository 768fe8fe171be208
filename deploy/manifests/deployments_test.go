package manifests

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

const (
	internalPort = 9090
	preStopMax   = 20 // seconds; the rest of the grace period is the service's own drain
)

func checkDeployments(t *testing.T, b *built) {
	if len(b.deployments) == 0 {
		t.Fatal("no Deployment in the output")
	}
	for _, d := range b.deployments {
		t.Run(d.Name, func(t *testing.T) {
			checkDeployment(t, d)
		})
	}
}

func checkDeployment(t *testing.T, d *appsv1.Deployment) {
	tpl := d.Spec.Template
	if d.Spec.Replicas != nil {
		t.Errorf("replicas = %d: leave it unset, the HorizontalPodAutoscaler owns it", *d.Spec.Replicas)
	}
	if got := tpl.Labels["app.kubernetes.io/name"]; got != d.Name {
		t.Errorf("pod label app.kubernetes.io/name = %q, want %q", got, d.Name)
	}
	if got := tpl.Labels["app.kubernetes.io/part-of"]; got != "paylane" {
		t.Errorf("pod label app.kubernetes.io/part-of = %q, want paylane", got)
	}
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil || sel.Empty() || !sel.Matches(labels.Set(tpl.Labels)) {
		t.Errorf("selector %v does not select the pod template (%v)", d.Spec.Selector, err)
	}
	want := map[string]string{"prometheus.io/scrape": "true", "prometheus.io/port": "9090", "prometheus.io/path": "/metrics"}
	for k, v := range want {
		if got := tpl.Annotations[k]; got != v {
			t.Errorf("pod annotation %s = %q, want %q", k, got, v)
		}
	}
	pod := tpl.Spec
	checkPodSecurity(t, pod)
	if len(pod.Containers) == 0 {
		t.Fatal("no containers")
	}
	for _, c := range pod.Containers {
		checkContainer(t, c)
		checkProbes(t, c)
		checkShutdown(t, pod, c)
	}
}

func checkPodSecurity(t *testing.T, pod corev1.PodSpec) {
	t.Helper()
	sc := pod.SecurityContext
	if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		t.Error("pod securityContext.runAsNonRoot is not true")
	}
	if sc != nil && sc.RunAsUser != nil && *sc.RunAsUser == 0 {
		t.Error("pod securityContext.runAsUser is 0 (root)")
	}
	if sc == nil || sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Error("pod seccompProfile is not RuntimeDefault (restricted Pod Security Standard)")
	}
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
		t.Error("automountServiceAccountToken is not false: no Paylane service talks to the Kubernetes API")
	}
}

// checkContainer checks the container's hardening, resources and image.
func checkContainer(t *testing.T, c corev1.Container) {
	t.Helper()
	sc := c.SecurityContext
	switch {
	case sc == nil:
		t.Errorf("container %s: no securityContext", c.Name)
	default:
		if sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
			t.Errorf("container %s: runAsNonRoot is not true", c.Name)
		}
		if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
			t.Errorf("container %s: readOnlyRootFilesystem is not true", c.Name)
		}
		if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
			t.Errorf("container %s: allowPrivilegeEscalation is not false", c.Name)
		}
		if sc.Capabilities == nil || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" || len(sc.Capabilities.Add) > 0 {
			t.Errorf("container %s: capabilities must drop ALL and add none, got %+v", c.Name, sc.Capabilities)
		}
		if sc.Privileged != nil && *sc.Privileged {
			t.Errorf("container %s: privileged", c.Name)
		}
	}
	for _, res := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, hasReq := c.Resources.Requests[res]
		limit, hasLimit := c.Resources.Limits[res]
		if !hasReq || !hasLimit {
			t.Errorf("container %s: %s needs both a request and a limit", c.Name, res)
			continue
		}
		if req.Cmp(limit) > 0 {
			t.Errorf("container %s: %s request %s above its limit %s", c.Name, res, req.String(), limit.String())
		}
	}
	image := c.Image[strings.LastIndex(c.Image, "/")+1:]
	if !strings.Contains(image, ":") && !strings.Contains(c.Image, "@sha256:") || strings.HasSuffix(c.Image, ":latest") {
		t.Errorf("container %s: image %q has no pinned tag", c.Name, c.Image)
	}
}

func checkProbes(t *testing.T, c corev1.Container) {
	t.Helper()
	probes := []struct {
		kind  string
		probe *corev1.Probe
		path  string
	}{
		{"readiness", c.ReadinessProbe, "/readyz"},
		{"liveness", c.LivenessProbe, "/healthz"},
	}
	for _, p := range probes {
		if p.probe == nil || p.probe.HTTPGet == nil {
			t.Errorf("container %s: no %s httpGet probe", c.Name, p.kind)
			continue
		}
		if p.probe.HTTPGet.Path != p.path {
			t.Errorf("container %s: %s probe path %q, want %q", c.Name, p.kind, p.probe.HTTPGet.Path, p.path)
		}
		if got := containerPort(c, p.probe.HTTPGet.Port); got != internalPort {
			t.Errorf("container %s: %s probe port %s is container port %d, want the internal listener %d", c.Name, p.kind, p.probe.HTTPGet.Port.String(), got, internalPort)
		}
	}
}

// containerPort resolves a port name or number against c's ports (0 if unknown).
func containerPort(c corev1.Container, port intstr.IntOrString) int32 {
	for _, p := range c.Ports {
		if (port.Type == intstr.String && p.Name == port.StrVal) || (port.Type == intstr.Int && p.ContainerPort == port.IntVal) {
			return p.ContainerPort
		}
	}
	return 0
}

// checkShutdown checks graceful shutdown: a preStop hook that works in a
// distroless image (no shell) and a grace period longer than it.
func checkShutdown(t *testing.T, pod corev1.PodSpec, c corev1.Container) {
	t.Helper()
	if c.Lifecycle == nil || c.Lifecycle.PreStop == nil {
		t.Errorf("container %s: no preStop hook", c.Name)
		return
	}
	pre := c.Lifecycle.PreStop
	if pre.Exec != nil {
		t.Errorf("container %s: preStop exec %v cannot run in a distroless image; use sleep", c.Name, pre.Exec.Command)
	}
	var wait int64
	if pre.Sleep != nil {
		wait = pre.Sleep.Seconds
	}
	if wait <= 0 || wait > preStopMax {
		t.Errorf("container %s: preStop waits %d s, want 1..%d", c.Name, wait, preStopMax)
	}
	if pod.TerminationGracePeriodSeconds == nil || *pod.TerminationGracePeriodSeconds < wait+10 {
		t.Errorf("terminationGracePeriodSeconds %v leaves under 10 s to drain after preStop (%d s)", pod.TerminationGracePeriodSeconds, wait)
	}
}
