package manifests

import (
	"net/netip"
	"net/url"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// source is where a connection comes from: a pod (labels, namespace labels)
// or an address outside the cluster.
type source struct {
	name      string
	podLabels map[string]string // nil outside the cluster
	nsLabels  map[string]string
	ip        netip.Addr
}

// admits evaluates the NetworkPolicies of one namespace the way the API
// defines them: a pod no Ingress policy selects takes everything; a selected
// pod takes a connection when some policy selecting it has a rule whose
// peers and ports both match.
func admits(t *testing.T, policies []*networkingv1.NetworkPolicy, ns string, src source, dst map[string]string, port corev1.ContainerPort) bool {
	t.Helper()
	selected := false
	for _, p := range policies {
		if !hasIngress(p) || !matchesSelector(t, &p.Spec.PodSelector, dst, true) {
			continue
		}
		selected = true
		for _, rule := range p.Spec.Ingress {
			if peersMatch(t, rule.From, ns, src) && portsMatch(rule.Ports, port) {
				return true
			}
		}
	}
	return !selected
}

func hasIngress(p *networkingv1.NetworkPolicy) bool {
	for _, pt := range p.Spec.PolicyTypes {
		if pt == networkingv1.PolicyTypeIngress {
			return true
		}
	}
	return len(p.Spec.PolicyTypes) == 0
}

// matchesSelector: an empty selector selects everything when emptyAll.
func matchesSelector(t *testing.T, s *metav1.LabelSelector, set map[string]string, emptyAll bool) bool {
	t.Helper()
	sel, err := metav1.LabelSelectorAsSelector(s)
	if err != nil {
		t.Fatalf("selector %v: %v", s, err)
	}
	if sel.Empty() {
		return emptyAll
	}
	return sel.Matches(labels.Set(set))
}

func peersMatch(t *testing.T, peers []networkingv1.NetworkPolicyPeer, ns string, src source) bool {
	t.Helper()
	if len(peers) == 0 {
		return true
	}
	for _, peer := range peers {
		switch {
		case peer.IPBlock != nil:
			if src.podLabels == nil && inBlock(t, peer.IPBlock, src.ip) {
				return true
			}
		case src.podLabels == nil:
		case peer.NamespaceSelector == nil:
			if src.nsLabels["kubernetes.io/metadata.name"] == ns && matchesSelector(t, peer.PodSelector, src.podLabels, true) {
				return true
			}
		default:
			if matchesSelector(t, peer.NamespaceSelector, src.nsLabels, true) &&
				(peer.PodSelector == nil || matchesSelector(t, peer.PodSelector, src.podLabels, true)) {
				return true
			}
		}
	}
	return false
}

func inBlock(t *testing.T, b *networkingv1.IPBlock, ip netip.Addr) bool {
	t.Helper()
	cidr, err := netip.ParsePrefix(b.CIDR)
	if err != nil {
		t.Fatalf("ipBlock %q: %v", b.CIDR, err)
	}
	for _, ex := range b.Except {
		if e, err := netip.ParsePrefix(ex); err == nil && e.Contains(ip) {
			return false
		}
	}
	return cidr.Contains(ip)
}

func portsMatch(ports []networkingv1.NetworkPolicyPort, port corev1.ContainerPort) bool {
	if len(ports) == 0 {
		return true
	}
	for _, p := range ports {
		if p.Port == nil {
			return true
		}
		if (p.Port.Type == intstr.String && p.Port.StrVal == port.Name) || (p.Port.Type == intstr.Int && p.Port.IntVal == port.ContainerPort) {
			return true
		}
	}
	return false
}

// checkNetworkPolicies: from outside, only the gateway's public port answers;
// a service's HTTP port takes traffic only from the gateway and the services
// labelled as its callers (calls.paylane.io/<service>: "true"); internal
// ports (metrics) only from the monitoring namespace.
func checkNetworkPolicies(t *testing.T, b *built) {
	ns := b.namespace
	if ns == "" {
		ns = "default"
	}
	nsLabels := map[string]string{"kubernetes.io/metadata.name": ns}
	outside := source{name: "the internet", ip: netip.MustParseAddr("203.0.113.7")}
	prometheus := source{name: "prometheus", podLabels: map[string]string{"app": "prometheus"}, nsLabels: map[string]string{"kubernetes.io/metadata.name": "monitoring"}}
	stranger := source{name: "a pod of another app", podLabels: map[string]string{"app": "other"}, nsLabels: nsLabels}
	sources := []source{outside, prometheus, stranger}
	for _, d := range b.deployments {
		sources = append(sources, source{name: d.Name, podLabels: d.Spec.Template.Labels, nsLabels: nsLabels})
	}
	for _, d := range b.deployments {
		t.Run(d.Name, func(t *testing.T) {
			checkOwnPolicy(t, b, d.Name, d.Spec.Template.Labels)
			for _, c := range d.Spec.Template.Spec.Containers {
				for _, port := range c.Ports {
					for _, src := range sources {
						want := wantAdmitted(d.Name, port.Name, src)
						if got := admits(t, b.policies, ns, src, d.Spec.Template.Labels, port); got != want {
							t.Errorf("%s → %s:%s admitted = %v, want %v", src.name, d.Name, port.Name, got, want)
						}
					}
				}
			}
		})
	}
}

// wantAdmitted is the intended traffic matrix.
func wantAdmitted(dst, port string, src source) bool {
	switch port {
	case "public":
		return isGateway(dst)
	case "internal":
		return src.name == "prometheus"
	case "admin":
		return false // an operator's toolbox pod, labelled, or kubectl port-forward
	case "http":
		return src.podLabels != nil && src.nsLabels["kubernetes.io/metadata.name"] != "monitoring" &&
			(src.name == "gateway" || src.podLabels["calls.paylane.io/"+dst] == "true")
	}
	return false
}

// checkOwnPolicy: each service has a policy of its own (named after it), so
// its callers are listed in one place.
func checkOwnPolicy(t *testing.T, b *built, name string, podLabels map[string]string) {
	t.Helper()
	for _, p := range b.policies {
		if p.Name == name && p.Spec.PodSelector.MatchLabels["app.kubernetes.io/name"] == name &&
			matchesSelector(t, &p.Spec.PodSelector, podLabels, false) && hasIngress(p) {
			return
		}
	}
	var names []string
	for _, p := range b.policies {
		names = append(names, p.Name)
	}
	t.Errorf("no NetworkPolicy %q selecting its pods (policies: %s)", name, strings.Join(names, ", "))
}

// checkPeersReachable: a service configured with another service's URL
// (CONTACTS_URL=http://contacts-svc:8080) carries that service's
// calls.paylane.io label, so the callee's NetworkPolicy admits its calls.
func checkPeersReachable(t *testing.T, b *built) {
	names := map[string]bool{}
	for _, d := range b.deployments {
		names[d.Name] = true
	}
	for _, d := range b.deployments {
		for k, v := range b.envOf(d.Spec.Template.Spec.Containers[0]) {
			u, err := url.Parse(v)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || !names[u.Hostname()] || u.Hostname() == d.Name {
				continue
			}
			if d.Spec.Template.Labels["calls.paylane.io/"+u.Hostname()] != "true" {
				t.Errorf("%s: %s=%s, but its pods lack calls.paylane.io/%s: \"true\", so %s's NetworkPolicy refuses them",
					d.Name, k, v, u.Hostname(), u.Hostname())
			}
		}
	}
}
