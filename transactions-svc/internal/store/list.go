package store

import (
	"context"
	"fmt"
	"time"

	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// Filter narrows a list of receivables or payables; zero values do not
// filter.
type Filter struct {
	Status       string
	ContactID    string
	ExternalID   string
	CampaignID   string
	CreatedSince *time.Time
}

// where builds the WHERE clause of f and its arguments (a condition only
// for each filter set, listtotal.Where). The tenant is the
// row-level security policy's: a tenant parameter as well made the generic
// plan of pgx's statement cache plan for an average tenant (a parallel
// scan of 23 ms for the first page of a 10,000-item tenant, against
// 0.2 ms; docs/benchmarks.md, "Data growth"), while the planner reads the
// policy's setting for its estimates.
func (f Filter) where() listtotal.Where {
	var w listtotal.Where
	w.And("c.deleted_at IS NULL")
	if f.Status != "" {
		w.And("c.status = $%d", f.Status)
	}
	if f.ContactID != "" {
		w.And("c.contact_id = $%d", f.ContactID)
	}
	if f.ExternalID != "" {
		w.And("c.external_id = $%d", f.ExternalID)
	}
	if f.CampaignID != "" {
		w.And("t.campaign_id = $%d", f.CampaignID)
	}
	if f.CreatedSince != nil {
		w.And("c.created_at >= $%d", *f.CreatedSince)
	}
	return w
}

// listFrom is the FROM of a list of direction d filtered by f. Every item
// has its parent transaction, so it joins transactions only to filter by
// campaign: otherwise the capped count is an index-only scan of the items
// alone (receivables_status_list_idx for a status, migration 00010;
// receivables_created_idx for created_since), not a hash join of every
// item with its transaction (docs/benchmarks.md, "Data growth").
func listFrom(d txn.Direction, f Filter) string {
	from := " FROM " + table(d) + " c"
	if f.CampaignID != "" {
		from += " JOIN transactions t ON t.id = c.transaction_id"
	}
	return from
}

// listSQL returns the count statement (a row per matching item, for
// listtotal) and the FROM and WHERE of the page statement (listPageSQL) of
// a list of direction d filtered by f, and their arguments.
func listSQL(d txn.Direction, f Filter) (count, fromWhere string, args []any) {
	where := f.where()
	fromWhere = listFrom(d, f) + where.SQL()
	return "SELECT 1" + fromWhere, fromWhere, where.Args()
}

// listPageSQL selects the page of the items of direction d that fromWhere
// selects, newest first: LIMIT is parameter n and OFFSET parameter n+1,
// counted in the order orderBy (a listtotal.Window's OrderBy of listOrder:
// from the newest, or from the oldest by a backward scan of the same
// index).
//
// The page finds its ids in the list's index first, like the count, and
// joins only those items to their transactions, each in a lateral subquery
// the planner cannot merge into a join (LIMIT 1). Joined before the LIMIT,
// the planner took the transactions' tenant condition for a filter of its
// own and expected a few rows where a page has 25: the page then looked as
// dear as reading the whole range, and the generic plan of pgx's statement
// cache, a parallel scan with a worker start per request, won (18-21 ms for
// created_since against 0.3 ms; docs/benchmarks.md, "Data growth").
func listPageSQL(d txn.Direction, fromWhere string, n int, orderBy string) string {
	ids := "SELECT c.id, c.created_at" + fromWhere + " ORDER BY " + orderBy + fmt.Sprintf(" LIMIT $%d OFFSET $%d", n, n+1)
	return "SELECT x.* FROM (" + ids + ") page CROSS JOIN LATERAL (" + selectItems(d) +
		" WHERE c.id = page.id LIMIT 1) x ORDER BY page.created_at DESC, page.id DESC"
}

// listOrder is the ORDER BY of a list of items: newest first.
const listOrder = "c.created_at DESC, c.id DESC"

// ListItems returns a page of the live items of direction d matching f,
// newest first, and how many match in all (listtotal: exact up to the
// store's ListCap, estimated above it). A page in the older half of an
// exact total is read from the oldest end (listtotal.Window).
func (t *Tx) ListItems(ctx context.Context, d txn.Direction, f Filter, limit, offset int) ([]txn.Item, listtotal.Total, error) {
	count, fromWhere, args := listSQL(d, f)
	total, err := t.lists.Count(ctx, t.tx, t.listCap, t.tenantID, count, args...)
	if err != nil {
		return nil, listtotal.Total{}, fmt.Errorf("counting %ss: %w", d, err)
	}
	w := total.Window(limit, offset)
	rows, err := t.tx.Query(ctx, listPageSQL(d, fromWhere, len(args)+1, w.OrderBy(listOrder)), w.Args(args)...)
	if err != nil {
		return nil, listtotal.Total{}, fmt.Errorf("listing %ss: %w", d, err)
	}
	defer rows.Close()
	var out []txn.Item
	for rows.Next() {
		it, err := scanItem(rows, d)
		if err != nil {
			return nil, listtotal.Total{}, fmt.Errorf("reading %s: %w", d, err)
		}
		out = append(out, it)
	}
	if err := rows.Err(); err != nil {
		return nil, listtotal.Total{}, fmt.Errorf("listing %ss: %w", d, err)
	}
	return out, total, nil
}
