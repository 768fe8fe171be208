package store_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/optin-svc/internal/optin"
	"github.com/paylane/paylane/optin-svc/internal/store"
	"github.com/paylane/paylane/optin-svc/migrations"
)

// TestListPagesFromEitherEndAreTheList: the pages of two and of three of
// the consents, suppressions and messages lists, those past the middle of
// an exact total read from the oldest end (listtotal.Window), join to the
// list read as one page: newest first, and rows of the same instant by id,
// descending.
func TestListPagesFromEitherEndAreTheList(t *testing.T) {
	t.Parallel()
	pg := testkit.PG(t)
	st := store.New(pg.Pool(t, pg.Database(t, "optin", migrations.Sets()...)))
	ctx := context.Background()
	const tenant = "tn_pages"
	base := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	// Row i is at base + i/3 seconds (three to an instant), and its id does
	// not follow i, so the ties are broken by id, not by insertion.
	at := func(i int) time.Time { return base.Add(time.Duration(i/3) * time.Second) }
	id := func(prefix string, i int) string { return fmt.Sprintf("%s%02d", prefix, (i*5)%9) }
	phone := func(i int) string { return fmt.Sprintf("+1415555%04d", i) }
	err := st.Write(ctx, idempotency.Tx{}, tenant, func(tx *store.Tx) error {
		var msgs []optin.Message
		for i := range 9 {
			c := optin.Consent{ID: id("c", i), ContactID: "ct", Phone: phone(i), Status: optin.ConsentConfirmed,
				Channel: "sms", Source: optin.ConsentFromInboundSMS, ConsentedAt: at(i), CreatedAt: at(i), UpdatedAt: at(i)}
			if err := tx.InsertConsent(ctx, c); err != nil {
				return err
			}
			channel := "sms"
			if i == 4 { // another channel's entry is not on the sms list
				channel = "email"
			}
			s := optin.Suppression{ID: id("s", i), Phone: phone(i), Reason: "manual", Channel: channel, Source: "api",
				CreatedAt: at(i)}
			if _, _, err := tx.AddSuppression(ctx, s); err != nil {
				return err
			}
			to := phone(i % 2) // five to +14155550000, four to +14155550001
			msgs = append(msgs, optin.Message{ID: id("m", i), NotificationID: id("n", i), Kind: "notification", To: to,
				Body: "text", Status: optin.MessageDelivered, Provider: "sink", CreatedAt: at(i), UpdatedAt: at(i)})
		}
		_, err := tx.InsertMessages(ctx, msgs)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// want is the list newest first of the rows i of prefix that match.
	want := func(prefix string, match func(i int) bool) []string {
		var keys []string
		for i := range 9 {
			if match(i) {
				keys = append(keys, fmt.Sprintf("%02d %s", i/3, id(prefix, i)))
			}
		}
		slices.Sort(keys)
		slices.Reverse(keys)
		for i, k := range keys {
			keys[i] = strings.Fields(k)[1]
		}
		return keys
	}
	all := func(int) bool { return true }
	for _, l := range []struct {
		name string
		want []string
		page func(tx *store.Tx, limit, offset int) ([]string, listtotal.Total, error)
	}{
		{"consents", want("c", all), func(tx *store.Tx, limit, offset int) ([]string, listtotal.Total, error) {
			list, total, err := tx.ListConsents(ctx, store.ConsentFilter{}, limit, offset)
			return idsOf(list, func(c optin.Consent) string { return c.ID }), total, err
		}},
		{"sms suppressions", want("s", func(i int) bool { return i != 4 }), func(tx *store.Tx, limit, offset int) ([]string, listtotal.Total, error) {
			list, total, err := tx.ListSuppressions(ctx, "sms", limit, offset)
			return idsOf(list, func(s optin.Suppression) string { return s.ID }), total, err
		}},
		{"messages", want("m", all), func(tx *store.Tx, limit, offset int) ([]string, listtotal.Total, error) {
			list, total, err := tx.ListMessages(ctx, "", limit, offset)
			return idsOf(list, func(m optin.Message) string { return m.ID }), total, err
		}},
		{"messages to a number", want("m", func(i int) bool { return i%2 == 0 }), func(tx *store.Tx, limit, offset int) ([]string, listtotal.Total, error) {
			list, total, err := tx.ListMessages(ctx, phone(0), limit, offset)
			return idsOf(list, func(m optin.Message) string { return m.ID }), total, err
		}},
	} {
		t.Run(l.name, func(t *testing.T) {
			read := func(limit, offset int) []string {
				t.Helper()
				var got []string
				if err := st.Read(ctx, tenant, func(tx *store.Tx) error {
					ids, total, err := l.page(tx, limit, offset)
					if total != listtotal.Exact(len(l.want)) {
						t.Errorf("limit %d, offset %d: total %+v, want %d exact", limit, offset, total, len(l.want))
					}
					got = ids
					return err
				}); err != nil {
					t.Fatal(err)
				}
				return got
			}
			if diff := cmp.Diff(l.want, read(len(l.want), 0)); diff != "" {
				t.Fatalf("one page (-want +got):\n%s", diff)
			}
			for _, limit := range []int{2, 3} {
				var paged []string
				for offset := 0; offset < len(l.want); offset += limit {
					paged = append(paged, read(limit, offset)...)
				}
				if diff := cmp.Diff(l.want, paged); diff != "" {
					t.Errorf("pages of %d, joined (-one page +pages):\n%s", limit, diff)
				}
			}
		})
	}
}

func idsOf[T any](list []T, id func(T) string) []string {
	out := make([]string, len(list))
	for i, v := range list {
		out[i] = id(v)
	}
	return out
}
