package tenancy

// Group is the items of one tenant taken from a batch, in the batch's
// order.
type Group[T any] struct {
	TenantID string
	Items    []T
}

// ByTenant groups items by the tenant tenantOf names, for work done in one
// transaction per tenant (a batch consumer's events, a dispatcher's leased
// messages): the groups come in the order their tenants first appear in
// items, and each keeps the items' order, so the events of one partition
// stay in order.
func ByTenant[T any](items []T, tenantOf func(T) string) []Group[T] {
	var groups []Group[T]
	index := map[string]int{}
	for _, it := range items {
		tenant := tenantOf(it)
		i, ok := index[tenant]
		if !ok {
			i = len(groups)
			index[tenant] = i
			groups = append(groups, Group[T]{TenantID: tenant})
		}
		groups[i].Items = append(groups[i].Items, it)
	}
	return groups
}
