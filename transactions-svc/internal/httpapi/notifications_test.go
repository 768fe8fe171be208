package httpapi_test

import (
	"net/http"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/transactions-svc/internal/testenv"
)

// notification.requested reaches every consumer of the transactions topic:
// it carries ids and the kind only, never the recipient's number nor the
// text with its signed link. optin-svc reads those by id, within the
// tenant, on the internal route.
func TestNotificationEventCarriesIDsOnly(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rec := f.create(t, "receivables", "")
	pay := f.create(t, "payables", "")
	digits := regexp.MustCompile(`4155550123|5550123`)
	var found []string
	for _, e := range f.env.Events(t, f.tenant) {
		if e.Type != events.TypeNotificationRequested {
			continue
		}
		if raw := string(e.Data); digits.MatchString(raw) || strings.Contains(raw, "http") ||
			strings.Contains(raw, "/l/") || strings.Contains(raw, "expires=") {
			t.Errorf("notification.requested carries a number or a link: %s", raw)
		}
		keys := keysOf(rawData(t, e))
		want := []string{"contact_id", "direction", "kind", "notification_id", "transaction_id"}
		if diff := cmp.Diff(want, keys); diff != "" {
			t.Errorf("notification.requested fields (-want +got):\n%s", diff)
		}
		var n events.NotificationRequested
		if err := e.Decode(&n); err != nil {
			t.Fatal(err)
		}
		if e.TenantID != f.tenant || n.ContactID != f.contact || n.NotificationID == "" {
			t.Errorf("notification.requested %+v of tenant %s", n, e.TenantID)
		}
		found = append(found, n.Kind+" "+n.Direction+" "+n.TransactionID)
	}
	want := []string{events.KindPaymentLink + " receivable " + rec.TransactionID,
		events.KindPayoutLink + " payable " + pay.TransactionID}
	if diff := cmp.Diff(want, found); diff != "" {
		t.Fatalf("notifications (-want +got):\n%s", diff)
	}
	sent := f.env.Notifications(t, f.tenant)
	if sent[0].To != "+14155550123" || !strings.Contains(sent[0].Body, *rec.PaymentLinkURL) ||
		!strings.Contains(sent[1].Body, "/l/p/"+pay.ID+"?expires=") {
		t.Errorf("notifications kept %+v", sent)
	}
}

func keysOf(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// The internal route answers within the token's tenant only, behind the
// view ability of the notification's direction.
func TestNotificationRouteIsTenantScoped(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	pay := f.create(t, "payables", "")
	id := f.env.Notifications(t, f.tenant)[0].Event.NotificationID
	path := "/internal/v1/notifications/" + id
	view := func(tenant string, abilities ...string) string { return f.env.Token(t, tenant, abilities...) }

	r := f.env.Do(t, http.MethodGet, path, view(f.tenant, "api:view-payable"), "")
	expect(t, r, http.StatusOK, "")
	var got struct {
		Data struct{ ID, Kind, To, Body string }
	}
	r.JSON(t, &got)
	if got.Data.ID != id || got.Data.Kind != events.KindPayoutLink || got.Data.To != "+14155550123" ||
		!strings.Contains(got.Data.Body, "/l/p/"+pay.ID) {
		t.Errorf("notification %s", r.Body)
	}
	expect(t, f.env.Do(t, http.MethodGet, path, view(ids.New()), ""), http.StatusNotFound, "resource_not_found")
	expect(t, f.env.Do(t, http.MethodGet, "/internal/v1/notifications/"+ids.New(), view(f.tenant), ""),
		http.StatusNotFound, "resource_not_found")
	expect(t, f.env.Do(t, http.MethodGet, path, view(f.tenant, "api:view-receivable"), ""), http.StatusForbidden, "")
	expect(t, f.env.Do(t, http.MethodGet, path, "", ""), http.StatusUnauthorized, "")
}

// The read by ids answers the token's tenant's notifications among at most
// 100 well-formed ids, each once, and refuses hostile input with 422 on
// ids: nothing, an empty list, a NUL, a malformed id, 101 ids.
func TestNotificationsByIDRoute(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rec := f.create(t, "receivables", "")
	f.create(t, "payables", "")
	sent := f.env.Notifications(t, f.tenant)
	recID, payID := sent[0].Event.NotificationID, sent[1].Event.NotificationID
	both := f.env.Token(t, f.tenant, "api:view-receivable", "api:view-payable")
	get := func(query, token string) testenv.Response {
		return f.env.Do(t, http.MethodGet, "/internal/v1/notifications"+query, token, "")
	}

	r := get("?ids="+recID+","+ids.New()+","+payID+","+recID, both)
	expect(t, r, http.StatusOK, "")
	var got struct {
		Data []struct{ ID, Kind, To, Body string }
	}
	r.JSON(t, &got)
	byID := map[string]string{}
	for _, n := range got.Data {
		byID[n.ID] = n.Kind + " " + n.To
		if n.ID == recID && !strings.Contains(n.Body, *rec.PaymentLinkURL) {
			t.Errorf("receivable's notification body %q", n.Body)
		}
	}
	want := map[string]string{recID: events.KindPaymentLink + " +14155550123", payID: events.KindPayoutLink + " +14155550123"}
	if diff := cmp.Diff(want, byID); diff != "" || len(got.Data) != 2 {
		t.Errorf("notifications by id (-want +got):\n%s%s", diff, r.Body)
	}

	// Another tenant's token finds none of them.
	r = get("?ids="+recID+","+payID, f.env.Token(t, ids.New(), "api:view-receivable", "api:view-payable"))
	expect(t, r, http.StatusOK, "")
	if r.JSON(t, &got); len(got.Data) != 0 {
		t.Errorf("another tenant read %s", r.Body)
	}
	// Reading a payable's notification needs api:view-payable.
	expect(t, get("?ids="+recID+","+payID, f.env.Token(t, f.tenant, "api:view-receivable")), http.StatusForbidden, "")
	expect(t, get("?ids="+recID, f.env.Token(t, f.tenant, "api:view-receivable")), http.StatusOK, "")
	expect(t, get("?ids="+recID, ""), http.StatusUnauthorized, "")

	tooMany := strings.TrimSuffix(strings.Repeat(recID+",", 101), ",")
	for name, query := range map[string]string{
		"absent":    "",
		"empty":     "?ids=",
		"comma":     "?ids=,",
		"nul":       "?ids=" + recID + "%00",
		"nul alone": "?ids=%00",
		"not utf-8": "?ids=%FF",
		"malformed": "?ids=" + recID + ",not-a-ulid",
		"lowercase": "?ids=" + strings.ToLower(recID),
		"too many":  "?ids=" + tooMany,
	} {
		r := get(query, both)
		expect(t, r, http.StatusUnprocessableEntity, "validation_failed")
		var e struct {
			Error struct{ Details map[string][]string }
		}
		if r.JSON(t, &e); len(e.Error.Details["ids"]) == 0 {
			t.Errorf("%s: 422 does not name ids: %s", name, r.Body)
		}
	}
}
