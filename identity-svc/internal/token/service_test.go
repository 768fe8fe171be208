package token

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestServiceGrantValidate(t *testing.T) {
	t.Parallel()
	known := func(a string) bool { return a == "api:view-contact" || a == "api:create-contact" }
	valid := ServiceGrant{TenantID: "01JD3X0Q4Z8W2E5R7T9Y1V3K5N", Abilities: []string{"api:view-contact"}, Service: "optin-svc"}
	tests := []struct {
		name   string
		mutate func(*ServiceGrant)
		want   []string // fields with messages
	}{
		{"valid", func(*ServiceGrant) {}, nil},
		{"no tenant", func(g *ServiceGrant) { g.TenantID = " " }, []string{"tenant_id"}},
		{"no abilities", func(g *ServiceGrant) { g.Abilities = nil }, []string{"abilities"}},
		{"unknown ability", func(g *ServiceGrant) { g.Abilities = []string{"api:view-contact", "api:fly"} }, []string{"abilities"}},
		{"wildcard", func(g *ServiceGrant) { g.Abilities = []string{"*"} }, []string{"abilities"}},
		{"no service", func(g *ServiceGrant) { g.Service = "" }, []string{"service"}},
		{"service with a space", func(g *ServiceGrant) { g.Service = "optin svc" }, []string{"service"}},
		{"upper-case service", func(g *ServiceGrant) { g.Service = "Optin" }, []string{"service"}},
		{"everything wrong", func(g *ServiceGrant) { *g = ServiceGrant{} }, []string{"abilities", "service", "tenant_id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := valid
			tt.mutate(&g)
			got := g.Validate(known)
			var fields []string
			for f := range got {
				fields = append(fields, f)
			}
			slices.Sort(fields)
			if diff := cmp.Diff(tt.want, fields); diff != "" {
				t.Errorf("Validate() fields (-want +got):\n%s\nmessages: %v", diff, got)
			}
		})
	}
}

func TestServiceGrantNamesUnknownAbilities(t *testing.T) {
	t.Parallel()
	g := ServiceGrant{TenantID: "x", Service: "batch", Abilities: []string{"api:view-contact", "api:fly", "api:swim"}}
	got := g.Validate(func(a string) bool { return a == "api:view-contact" })
	want := []string{"Unknown abilities: api:fly, api:swim."}
	if diff := cmp.Diff(want, got["abilities"]); diff != "" {
		t.Errorf("abilities messages (-want +got):\n%s", diff)
	}
}

func TestServiceGrantNormalizeAndSubject(t *testing.T) {
	t.Parallel()
	g := ServiceGrant{Service: "optin-svc", Abilities: []string{"b", "a", "b"}}.Normalize()
	if diff := cmp.Diff([]string{"b", "a"}, g.Abilities); diff != "" {
		t.Errorf("Normalize() abilities (-want +got):\n%s", diff)
	}
	if got := g.Subject(); got != "service:optin-svc" {
		t.Errorf("Subject() = %q", got)
	}
}
