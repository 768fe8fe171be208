package store

import (
	"context"
	"fmt"
	"strings"
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

// where builds the WHERE clause of f and its arguments. The tenant is the
// row-level security policy's: a tenant parameter as well made the generic
// plan of pgx's statement cache plan for an average tenant (a parallel
// scan of 23 ms for the first page of a 10,000-item tenant, against
// 0.2 ms; docs/benchmarks.md, "Data growth"), while the planner reads the
// policy's setting for its estimates.
func (f Filter) where() (string, []any) {
	conds := []string{"c.deleted_at IS NULL"}
	var args []any
	add := func(cond string, v any) {
		args = append(args, v)
		conds = append(conds, fmt.Sprintf(cond, len(args)))
	}
	if f.Status != "" {
		add("c.status = $%d", f.Status)
	}
	if f.ContactID != "" {
		add("c.contact_id = $%d", f.ContactID)
	}
	if f.ExternalID != "" {
		add("c.external_id = $%d", f.ExternalID)
	}
	if f.CampaignID != "" {
		add("t.campaign_id = $%d", f.CampaignID)
	}
	if f.CreatedSince != nil {
		add("c.created_at >= $%d", *f.CreatedSince)
	}
	return strings.Join(conds, " AND "), args
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
// listtotal) and the page statement of a list of direction d filtered by
// f, and their arguments but the page's LIMIT and OFFSET (the two after
// the others). The page's OFFSET is counted in order (a listtotal.Window's:
// DESC from the newest, ASC from the oldest by a backward scan of the same
// index); its rows come newest first either way.
//
// The page finds its ids in the list's index first, like the count, and
// joins only those items to their transactions, each in a lateral subquery
// the planner cannot merge into a join (LIMIT 1). Joined before the LIMIT,
// the planner took the transactions' tenant condition for a filter of its
// own and expected a few rows where a page has 25: the page then looked as
// dear as reading the whole range, and the generic plan of pgx's statement
// cache, a parallel scan with a worker start per request, won (18-21 ms for
// created_since against 0.3 ms; docs/benchmarks.md, "Data growth").
func listSQL(d txn.Direction, f Filter, order string) (count, page string, args []any) {
	where, args := f.where()
	from := listFrom(d, f)
	ids := fmt.Sprintf("SELECT c.id, c.created_at%s WHERE %s ORDER BY c.created_at %s, c.id %s LIMIT $%d OFFSET $%d",
		from, where, order, order, len(args)+1, len(args)+2)
	page = "SELECT x.* FROM (" + ids + ") page CROSS JOIN LATERAL (" + selectItems(d) +
		" WHERE c.id = page.id LIMIT 1) x ORDER BY page.created_at DESC, page.id DESC"
	return "SELECT 1" + from + " WHERE " + where, page, args
}

// ListItems returns a page of the live items of direction d matching f,
// newest first, and how many match in all (listtotal: exact up to the
// store's ListCap, estimated above it). A page in the older half of an
// exact total is read from the oldest end (listtotal.Window).
func (t *Tx) ListItems(ctx context.Context, d txn.Direction, f Filter, limit, offset int) ([]txn.Item, listtotal.Total, error) {
	count, q, args := listSQL(d, f, "DESC")
	total, err := t.lists.Count(ctx, t.tx, t.listCap, t.tenantID, count, args...)
	if err != nil {
		return nil, listtotal.Total{}, fmt.Errorf("counting %ss: %w", d, err)
	}
	w := total.Window(limit, offset)
	if w.Reverse {
		_, q, _ = listSQL(d, f, w.Order())
	}
	rows, err := t.tx.Query(ctx, q, append(args, w.Limit, w.Offset)...)
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
