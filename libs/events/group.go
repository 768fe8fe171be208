package events

// TenantGroup is the items of one tenant taken from a batch, in the
// batch's order.
type TenantGroup[T any] struct {
	TenantID string
	Items    []T
}

// ByTenant groups items by the tenant tenantOf names, for a consumer that
// applies a batch (ConsumeBatch) in one transaction per tenant: the groups
// come in the order their tenants first appear in items, and each keeps
// the items' order, so the events of one partition stay in order.
func ByTenant[T any](items []T, tenantOf func(T) string) []TenantGroup[T] {
	var groups []TenantGroup[T]
	index := map[string]int{}
	for _, it := range items {
		tenant := tenantOf(it)
		i, ok := index[tenant]
		if !ok {
			i = len(groups)
			index[tenant] = i
			groups = append(groups, TenantGroup[T]{TenantID: tenant})
		}
		groups[i].Items = append(groups[i].Items, it)
	}
	return groups
}
