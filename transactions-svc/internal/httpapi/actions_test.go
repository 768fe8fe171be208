package httpapi_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/transactions-svc/internal/testenv"
)

func (f fixture) action(t *testing.T, path, id, action, body string, headers ...string) testenv.Response {
	t.Helper()
	return f.do(t, http.MethodPost, "/api/v1/"+path+"/"+id+"/"+action, body, headers...)
}

func (f fixture) show(t *testing.T, path, id string) item {
	t.Helper()
	var o one
	r := f.do(t, http.MethodGet, "/api/v1/"+path+"/"+id, "")
	expect(t, r, http.StatusOK, "")
	r.JSON(t, &o)
	return o.Data
}

// transitionError checks a 422 invalid_transition naming the pair.
func transitionError(t *testing.T, r testenv.Response, from, to string) {
	t.Helper()
	expect(t, r, http.StatusUnprocessableEntity, "invalid_transition")
	var env struct {
		Error struct {
			Message string            `json:"message"`
			Details map[string]string `json:"details"`
		} `json:"error"`
	}
	r.JSON(t, &env)
	if env.Error.Message != from+" -> "+to || env.Error.Details["from"] != from || env.Error.Details["to"] != to {
		t.Fatalf("error %+v, want %s -> %s", env.Error, from, to)
	}
}

func TestReceivableCancelAndMarkPaid(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.create(t, "receivables", "")
	r := f.action(t, "receivables", a.ID, "cancel", "")
	expect(t, r, http.StatusOK, "")
	var o one
	r.JSON(t, &o)
	if o.Data.Status != "cancelled" || o.Data.PaymentLinkURL != nil {
		t.Fatalf("cancelled %+v", o.Data)
	}
	transitionError(t, f.action(t, "receivables", a.ID, "cancel", ""), "cancelled", "cancelled")
	transitionError(t, f.action(t, "receivables", a.ID, "mark-paid", "{}"), "cancelled", "paid")

	b := f.create(t, "receivables", "")
	r = f.action(t, "receivables", b.ID, "mark-paid", `{"reference":"wire 7781"}`)
	expect(t, r, http.StatusOK, "")
	r.JSON(t, &o)
	if o.Data.Status != "paid" || o.Data.PaymentMethod == nil || *o.Data.PaymentMethod != "out_of_band" || o.Data.PaidAt == nil {
		t.Fatalf("marked paid %+v", o.Data)
	}
	expect(t, f.action(t, "receivables", b.ID, "cancel", ""), http.StatusConflict, "already_paid")
	transitionError(t, f.action(t, "receivables", b.ID, "mark-paid", "{}"), "paid", "paid")
	transitionError(t, f.action(t, "receivables", b.ID, "expire", ""), "paid", "expired")
	expect(t, f.action(t, "receivables", b.ID, "mark-paid", `{"note":"x"}`), http.StatusUnprocessableEntity, "validation_failed")

	var types []string
	for _, e := range f.env.Events(t, f.tenant) {
		types = append(types, e.Type)
	}
	want := []string{
		"receivable.created", "notification.requested", "receivable.cancelled", "receivable.updated",
		"receivable.created", "notification.requested", "receivable.paid", "receivable.updated",
	}
	if diff := cmp.Diff(want, types); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestReceivableLinkActions(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.create(t, "receivables", "")
	first := *a.PaymentLinkURL

	var o one
	f.action(t, "receivables", a.ID, "resend-notification", "").JSON(t, &o)
	if o.Data.PaymentLinkURL == nil || *o.Data.PaymentLinkURL != first {
		t.Fatalf("resend with a live link changed it: %+v", o.Data)
	}
	r := f.action(t, "receivables", a.ID, "revoke-link", "")
	expect(t, r, http.StatusOK, "")
	r.JSON(t, &o)
	if o.Data.Status != "pending" || o.Data.PaymentLinkURL != nil {
		t.Fatalf("after revoke %+v", o.Data)
	}
	f.env.Clock.Advance(1500 * time.Millisecond) // 1.5 s: the new link expires later than the old
	f.action(t, "receivables", a.ID, "resend-notification", "").JSON(t, &o)
	if o.Data.PaymentLinkURL == nil || *o.Data.PaymentLinkURL == first {
		t.Fatalf("resend after revoke kept the old link: %+v", o.Data)
	}
	r = f.action(t, "receivables", a.ID, "verify-payer", "")
	expect(t, r, http.StatusOK, "")
	var raw map[string]map[string]json.RawMessage
	r.JSON(t, &raw)
	if string(raw["data"]["payer_verified_at"]) == "null" {
		t.Errorf("verify-payer left payer_verified_at null")
	}
	r = f.action(t, "receivables", a.ID, "expire", "")
	expect(t, r, http.StatusOK, "")
	r.JSON(t, &o)
	if o.Data.Status != "expired" {
		t.Fatalf("after expire %+v", o.Data)
	}
	for _, action := range []string{"resend-notification", "revoke-link", "verify-payer"} {
		transitionError(t, f.action(t, "receivables", a.ID, action, ""), "expired", "pending")
	}
	transitionError(t, f.action(t, "receivables", a.ID, "retry-payment", ""), "expired", "processing")
	notifications := 0
	for _, e := range f.env.Events(t, f.tenant) {
		if e.Type == "notification.requested" {
			notifications++
		}
	}
	if notifications != 3 {
		t.Errorf("%d notifications, want 3 (create, resend, resend after revoke)", notifications)
	}
}

func TestPutAndDeleteFollowTheState(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.create(t, "receivables", `,"description":"old"`)
	body := `{"contact_id":"` + f.contact + `","amount":2000,"currency":"GBP","description":"new","id":"x","status":"paid","created_at":"1999-01-01T00:00:00Z"}`
	r := f.do(t, http.MethodPut, "/api/v1/receivables/"+a.ID, body)
	expect(t, r, http.StatusOK, "")
	var o one
	r.JSON(t, &o)
	if o.Data.Amount != 2000 || o.Data.Currency != "GBP" || o.Data.Status != "pending" || o.Data.ID != a.ID {
		t.Fatalf("after PUT %+v", o.Data)
	}
	expect(t, f.do(t, http.MethodPut, "/api/v1/receivables/"+a.ID, `{"contact_id":"01JD3X0Q4Z8W2E5R7T9Y1V3K5M","amount":5}`),
		http.StatusUnprocessableEntity, "validation_failed")
	transitionError(t, f.do(t, http.MethodDelete, "/api/v1/receivables/"+a.ID, ""), "pending", "deleted")
	expect(t, f.action(t, "receivables", a.ID, "mark-paid", ""), http.StatusOK, "")
	transitionError(t, f.do(t, http.MethodPut, "/api/v1/receivables/"+a.ID, body), "paid", "paid")

	b := f.create(t, "receivables", "")
	expect(t, f.action(t, "receivables", b.ID, "cancel", ""), http.StatusOK, "")
	expect(t, f.do(t, http.MethodDelete, "/api/v1/receivables/"+b.ID, ""), http.StatusNoContent, "")
	expect(t, f.do(t, http.MethodGet, "/api/v1/receivables/"+b.ID, ""), http.StatusNotFound, "resource_not_found")
	expect(t, f.do(t, http.MethodDelete, "/api/v1/receivables/"+b.ID, ""), http.StatusNotFound, "resource_not_found")
}

func TestScheduledPutMovesSendAt(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.create(t, "payables", `,"send_at":"2026-11-23T09:00:00Z"`)
	base := `{"contact_id":"` + f.contact + `","amount":1250`
	expect(t, f.do(t, http.MethodPut, "/api/v1/payables/"+a.ID, base+`}`), http.StatusUnprocessableEntity, "validation_failed")
	expect(t, f.do(t, http.MethodPut, "/api/v1/payables/"+a.ID, base+`,"send_at":"2026-11-25T09:00:00Z"}`), http.StatusOK, "")
	f.env.Clock.Advance(40 * time.Hour)
	f.env.RunDue(t) // the old instant has passed: requeued for the new one
	if got := f.show(t, "payables", a.ID); got.Status != "scheduled" {
		t.Fatalf("before the new send_at: %s", got.Status)
	}
	f.env.Clock.Advance(40 * time.Hour)
	f.env.RunDue(t)
	if got := f.show(t, "payables", a.ID); got.Status != "pending" {
		t.Fatalf("after the new send_at: %s", got.Status)
	}
}
