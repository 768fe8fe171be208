package httpapi_test

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

func TestIdempotentCreateAndActions(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	body := `{"contact_id":"` + f.contact + `","amount":700}`
	first := f.do(t, http.MethodPost, "/api/v1/payables", body, "Idempotency-Key: create-1")
	expect(t, first, http.StatusCreated, "")
	again := f.do(t, http.MethodPost, "/api/v1/payables", body, "Idempotency-Key: create-1")
	if again.Status != http.StatusCreated || string(again.Body) != string(first.Body) || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay %d %s %v", again.Status, again.Body, again.Header)
	}
	expect(t, f.do(t, http.MethodPost, "/api/v1/payables", `{"contact_id":"`+f.contact+`","amount":701}`, "Idempotency-Key: create-1"),
		http.StatusConflict, "idempotency_conflict")
	var p page
	f.do(t, http.MethodGet, "/api/v1/payables", "").JSON(t, &p)
	if p.Meta.Total != 1 {
		t.Fatalf("%d payables after a replayed create, want 1", p.Meta.Total)
	}
	var o one
	first.JSON(t, &o)
	c1 := f.action(t, "payables", o.Data.ID, "cancel", "", "Idempotency-Key: cancel-1")
	c2 := f.action(t, "payables", o.Data.ID, "cancel", "", "Idempotency-Key: cancel-1")
	if c1.Status != http.StatusOK || string(c1.Body) != string(c2.Body) {
		t.Fatalf("cancel replay: %d %s / %d %s", c1.Status, c1.Body, c2.Status, c2.Body)
	}
	// A refused action is stored too, and its write undone.
	r1 := f.action(t, "payables", o.Data.ID, "expire", "", "Idempotency-Key: expire-1")
	transitionError(t, r1, "cancelled", "expired")
	r2 := f.action(t, "payables", o.Data.ID, "expire", "", "Idempotency-Key: expire-1")
	if string(r1.Body) != string(r2.Body) || r2.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("error replay differs: %s / %s", r1.Body, r2.Body)
	}
	notifications, cancels := 0, 0
	for _, e := range f.env.Events(t, f.tenant) {
		switch e.Type {
		case "notification.requested":
			notifications++
		case "payable.cancelled":
			cancels++
		}
	}
	if notifications != 1 || cancels != 1 {
		t.Errorf("%d notifications, %d cancellations; want 1 each", notifications, cancels)
	}
}

// TestEveryWriteReplays sends every POST and PUT route of /api/v1, as the
// router lists them, twice with one Idempotency-Key: the second answer is
// the first replayed (contract section 3), whatever the first was.
func TestEveryWriteReplays(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rec := f.create(t, "receivables", "")
	pay := f.create(t, "payables", "")
	param := regexp.MustCompile(`:[a-z]+`)
	ids := map[string]string{"receivables": rec.ID, "payables": pay.ID, "transactions": rec.TransactionID}
	n := 0
	for _, r := range f.env.Web.GetRoutes(true) {
		if (r.Method != http.MethodPost && r.Method != http.MethodPut) || !strings.HasPrefix(r.Path, "/api/v1/") {
			continue
		}
		resource := strings.Split(r.Path, "/")[3]
		id, ok := ids[resource]
		if !ok {
			id = "01JD3X0Q4Z8W2E5R7T9Y1V3K5M"
		}
		path := strings.TrimSuffix(param.ReplaceAllString(r.Path, id), "/")
		key := fmt.Sprintf("every-write-%d", n)
		n++
		first := f.do(t, r.Method, path, "{}", "Idempotency-Key: "+key)
		again := f.do(t, r.Method, path, "{}", "Idempotency-Key: "+key)
		if first.Status >= 500 || again.Status != first.Status || string(again.Body) != string(first.Body) ||
			again.Header.Get("Idempotent-Replayed") != "true" {
			t.Errorf("%s %s: %d %s, then %d (replayed %q) %s", r.Method, path, first.Status, first.Body,
				again.Status, again.Header.Get("Idempotent-Replayed"), again.Body)
		}
	}
	if n < 24 {
		t.Fatalf("only %d write routes found", n)
	}
}
