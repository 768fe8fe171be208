package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/libs/ids"
)

// scaleSpan is how far back a loaded tenant's rows reach: row i of n is
// created at now - scaleSpan + i·scaleSpan/n, so the newest is the last.
const scaleSpan = 365 * 24 * time.Hour

// The loaded names: 40 first names × 1,600 surnames (a start and an end),
// so a million contacts hold each full name about 16 times and many more
// that share a first name or a surname.
const (
	scaleFirstNames = "Ada Alan Amara Ben Carla Chen Dario Elena Farah Grace Hugo Ines Ivan Jonas Kemal Lena " +
		"Luis Maria Mateo Nadia Noah Olga Omar Priya Quinn Rosa Sami Sofia Tariq Uma Victor Wen Xavier Yara " +
		"Yusuf Zoe Kofi Leila Marek Nina"
	scaleSurnameStarts = "Ab Bar Cal Dun Eck Fal Gor Hal Ing Jar Kell Lind Mor Nor Olb Pem Quar Ros Sand Tor " +
		"Ull Vor Wes Yor Zel Bram Cres Dorn Fenn Grim Hart Kirk Lang Marsh Pryd Red Stan Thorn Wald Brock"
	scaleSurnameEnds = "ani berg by dale er ford gard ham ington kov ley lund man mont ova ridge sen son stein ton " +
		"vik well wick wood ez elli ada ovo quist rud strom thal ecki idis oglu ovic anu ström eau ard"
	// scaleStatuses spread the loaded receivables over their states:
	// receivable i has the (i mod 20)th (half paid, a fifth pending, ...).
	scaleStatuses = "paid paid paid paid paid paid paid paid paid paid " +
		"pending pending pending pending expired expired cancelled failed draft scheduled"
)

// scaleData derives every loaded row's values from its index.
type scaleData struct {
	first, starts, ends, statuses []string
}

func newScaleData() scaleData {
	return scaleData{
		first: strings.Fields(scaleFirstNames), starts: strings.Fields(scaleSurnameStarts),
		ends: strings.Fields(scaleSurnameEnds), statuses: strings.Fields(scaleStatuses),
	}
}

// name is contact i's first and last name.
func (d scaleData) name(i int) (first, last string) {
	j := i / len(d.first)
	return d.first[i%len(d.first)], d.starts[j%len(d.starts)] + d.ends[(j/len(d.starts))%len(d.ends)]
}

// status is receivable i's status.
func (d scaleData) status(i int) string { return d.statuses[i%len(d.statuses)] }

// scaleDeleted reports whether contact i is soft-deleted (one in a hundred).
func scaleDeleted(i int) bool { return i%100 == 99 }

// scaleLive is how many of n loaded contacts are live.
func scaleLive(n int) int { return n - n/100 }

// loadedTenant is a tenant the scale benchmark filled: its contact ids in
// the order they were loaded (oldest first).
type loadedTenant struct {
	id       string
	contacts []string
}

// scaleExternalID is contact i's external id.
func scaleExternalID(i int) string { return fmt.Sprintf("crm-%07d", i) }

// contactIDs are the ids of n contacts created over scaleSpan up to now.
func (d scaleData) contactIDs(n int, now time.Time) []string {
	start := now.Add(-scaleSpan)
	step := scaleSpan / time.Duration(n)
	out := make([]string, n)
	for i := range n {
		out[i] = ids.NewAt(start.Add(time.Duration(i) * step))
	}
	return out
}

// loadContacts COPYs the contacts of tenant (contactIDs), each with its
// phone record, into contacts-svc's database through conn (the
// superuser's: row-level security does not apply).
func (d scaleData) loadContacts(ctx context.Context, conn *pgx.Conn, tenant string, contactIDs []string, now time.Time) error {
	n := len(contactIDs)
	start := now.Add(-scaleSpan)
	step := scaleSpan / time.Duration(n)
	phoneIDs := make([]string, n)
	for i := range n {
		phoneIDs[i] = ids.NewAt(start.Add(time.Duration(i) * step))
	}
	i := 0
	_, err := conn.CopyFrom(ctx, pgx.Identifier{"phones"}, []string{"id", "tenant_id", "e164", "created_at"},
		pgx.CopyFromFunc(func() ([]any, error) {
			if i == n {
				return nil, nil
			}
			at := start.Add(time.Duration(i) * step)
			row := []any{phoneIDs[i], tenant, fmt.Sprintf("+1212%07d", 2_000_000+i), at}
			i++
			return row, nil
		}))
	if err != nil {
		return fmt.Errorf("copying phones: %w", err)
	}
	i = 0
	_, err = conn.CopyFrom(ctx, pgx.Identifier{"contacts"},
		[]string{"id", "tenant_id", "external_id", "first_name", "last_name", "phone_id", "email", "created_at", "updated_at", "deleted_at"},
		pgx.CopyFromFunc(func() ([]any, error) {
			if i == n {
				return nil, nil
			}
			at := start.Add(time.Duration(i) * step)
			first, last := d.name(i)
			var email, deleted any
			if i%2 == 0 {
				email = fmt.Sprintf("c%d@example.com", i)
			}
			if scaleDeleted(i) {
				deleted = at.Add(time.Hour)
			}
			row := []any{contactIDs[i], tenant, scaleExternalID(i), first, last, phoneIDs[i], email, at, at, deleted}
			i++
			return row, nil
		}))
	if err != nil {
		return fmt.Errorf("copying contacts: %w", err)
	}
	return nil
}

// loadReceivables COPYs n receivables of tenant, each with its parent
// transaction, into transactions-svc's database through conn (the
// superuser's). Receivable i belongs to one of contacts.
func (d scaleData) loadReceivables(ctx context.Context, conn *pgx.Conn, tenant string, contacts []string, n int, now time.Time) error {
	start := now.Add(-scaleSpan)
	step := scaleSpan / time.Duration(n)
	txIDs := make([]string, n)
	for i := range n {
		txIDs[i] = ids.NewAt(start.Add(time.Duration(i) * step))
	}
	contactOf := func(i int) (int, string) {
		j := (i * 7919) % len(contacts)
		return j, contacts[j]
	}
	i := 0
	_, err := conn.CopyFrom(ctx, pgx.Identifier{"transactions"},
		[]string{"id", "tenant_id", "direction", "contact_id", "status", "recipient_first_name", "recipient_last_name",
			"recipient_phone", "created_at", "updated_at"},
		pgx.CopyFromFunc(func() ([]any, error) {
			if i == n {
				return nil, nil
			}
			at := start.Add(time.Duration(i) * step)
			j, contact := contactOf(i)
			first, last := d.name(j)
			row := []any{txIDs[i], tenant, "receivable", contact, d.status(i), first, last,
				fmt.Sprintf("+1212%07d", 2_000_000+j), at, at}
			i++
			return row, nil
		}))
	if err != nil {
		return fmt.Errorf("copying transactions: %w", err)
	}
	i = 0
	_, err = conn.CopyFrom(ctx, pgx.Identifier{"receivables"},
		[]string{"id", "tenant_id", "transaction_id", "contact_id", "external_id", "amount", "currency", "description",
			"due_date", "status", "link_ttl_hours", "created_at", "updated_at"},
		pgx.CopyFromFunc(func() ([]any, error) {
			if i == n {
				return nil, nil
			}
			at := start.Add(time.Duration(i) * step)
			_, contact := contactOf(i)
			row := []any{ids.NewAt(at), tenant, txIDs[i], contact, fmt.Sprintf("inv-%07d", i), int64(1000 + i%50000), "USD",
				fmt.Sprintf("Invoice %d", i), at.Add(14 * 24 * time.Hour), d.status(i), int32(72), at, at}
			i++
			return row, nil
		}))
	if err != nil {
		return fmt.Errorf("copying receivables: %w", err)
	}
	return nil
}
