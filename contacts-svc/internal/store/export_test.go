package store

import (
	"context"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/libs/listtotal"
)

// The statements the plan test explains.
const (
	LiveByExternalIDsSQL = liveByExternalIDsSQL
	LivePhoneOwnersSQL   = livePhoneOwnersSQL
	BatchRowsSQL         = batchRowsSQL
)

// EstimateContacts is the store's estimate of a list above the cap.
var EstimateContacts = estimateContacts

// ContactsListSQL is the list's count and page statements of a filter, the
// page read from the newest end.
func ContactsListSQL(f Filter) (count, page string, args []any) {
	return ContactsListSQLOrder(f, "DESC")
}

// ContactsListSQLOrder is ContactsListSQL with the page read from the
// newest end (order DESC) or from the oldest (ASC).
func ContactsListSQLOrder(f Filter, order string) (count, page string, args []any) {
	count, fromWhere, args := contactsListSQL(f)
	w := listtotal.Window{Reverse: order == "ASC"}
	return count, contactsPageSQL(fromWhere, len(args)+1, w.OrderBy(contactsOrder)), args
}

// The statements of a search: by comparing every live contact of the
// tenant (what a search by name did before migration 00008; a search
// narrowed by phone or email compares only the contacts its index finds),
// and the tiers of a search by name alone.

// ComparingSearch is the statement, and its arguments, that compares every
// live contact of tenant with name.
func ComparingSearch(tenant, name string, limit int) (string, []any) {
	return searchSQL(tenant, Search{Name: name, Limit: limit})
}

// NarrowedSearch is the statement, and its arguments, of a search of
// tenant narrowed by phone or email.
func NarrowedSearch(tenant string, s Search) (string, []any) { return searchSQL(tenant, s) }

// NameSearchTiers are the statements of a search by name alone, in order.
func NameSearchTiers() []string {
	return []string{identicalNameSearchSQL, strongNameSearchSQL, allNameSearchSQL}
}

// QueryCandidates runs a search statement in tx.
func QueryCandidates(ctx context.Context, tx *Tx, sql string, args ...any) ([]contact.Candidate, error) {
	return tx.searchContacts(ctx, sql, args...)
}
