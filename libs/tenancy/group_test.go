package tenancy_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/tenancy"
)

func TestByTenantKeepsTheOrderOfTenantsAndItems(t *testing.T) {
	t.Parallel()
	type item struct{ tenant, id string }
	got := tenancy.ByTenant([]item{{"B", "1"}, {"A", "2"}, {"B", "3"}, {"C", "4"}, {"A", "5"}},
		func(it item) string { return it.tenant })
	want := []tenancy.Group[item]{
		{TenantID: "B", Items: []item{{"B", "1"}, {"B", "3"}}},
		{TenantID: "A", Items: []item{{"A", "2"}, {"A", "5"}}},
		{TenantID: "C", Items: []item{{"C", "4"}}},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(item{})); diff != "" {
		t.Errorf("ByTenant (-want +got):\n%s", diff)
	}
	if got := tenancy.ByTenant(nil, func(it item) string { return it.tenant }); len(got) != 0 {
		t.Errorf("ByTenant(nil) = %v, want no group", got)
	}
}
