package devstack

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/paylane/paylane/identity-svc/client"
)

// TestDashboardContactsInChromium drives the contacts and batches pages in
// headless Chromium through the gateway: contacts created on the API are
// found by name and opened in the dashboard; a contacts batch submitted on
// the API with refused rows shows in the batches list, on the overview and,
// with the same row errors as the API's errors list, on its own page. With
// UPDATE_SCREENSHOTS=1 each page is captured at 1280 and 375 px into
// docs/dashboard/.
func TestDashboardContactsInChromium(t *testing.T) {
	stack, e := startWithClient(t)
	info := stack.info
	limit := noRateLimit // polling the batch must not meet the per-token limit
	if _, err := e.admin.UpdateTenant(context.Background(), info.DemoTenantID, client.TenantInput{
		Limits: &client.LimitsInput{APIRequestsPerMinute: &limit},
	}); err != nil {
		t.Fatalf("raising the demo tenant's request limit: %v", err)
	}
	b := startBrowser(t)
	shots := screenshotDir(t)
	base := info.GatewayURL + "/dashboard"

	var hamilton string
	for i, c := range []map[string]any{
		{"first_name": "Margaret", "last_name": "Hamilton", "phone": "+14155550161", "email": "margaret@example.com", "external_id": "crm-161"},
		{"first_name": "Katherine", "last_name": "Johnson", "phone": "+14155550162", "email": "katherine@example.com"},
		{"first_name": "Dorothy", "last_name": "Vaughan", "phone": "+442079460163"},
	} {
		r := e.send(t, http.MethodPost, "/api/v1/contacts", info.DemoToken, c, nil)
		e.expectStatus(t, r, http.StatusCreated)
		if i == 0 {
			var created struct{ Data struct{ ID string } }
			whDecode(t, r.body, &created)
			hamilton = created.Data.ID
		}
	}

	b.navigate(t, base+"/sign-in")
	b.submit(t, fillJS(map[string]string{"email": info.DemoUserEmail, "password": info.DemoUserPassword}, "button[type=submit]"))

	// Every contact is listed; a search by part of the name finds one.
	b.navigate(t, base+"/contacts")
	if text := b.eval(t, `document.body.innerText`); !strings.Contains(text, "Margaret Hamilton") || !strings.Contains(text, "Dorothy Vaughan") ||
		!strings.Contains(text, "+44 20 7946 0163") {
		t.Fatalf("the contacts list shows:\n%s", text)
	}
	b.submit(t, fillJS(map[string]string{"f-name": "hamilt"}, "form.filters button[type=submit]"))
	text := b.eval(t, `document.body.innerText`)
	if !strings.Contains(text, "Margaret Hamilton") || !strings.Contains(text, "+1 415-555-0161") || !strings.Contains(text, "margaret@example.com") ||
		strings.Contains(text, "Katherine") || !strings.Contains(b.eval(t, `location.search`), "name=hamilt") {
		t.Fatalf("searching hamilt shows:\n%s", text)
	}
	shots.take(t, b, "contacts")

	// Its page shows what the API's single read holds.
	b.submit(t, `document.querySelector('a[href="/dashboard/contacts/`+hamilton+`"]').click(); "submitted"`)
	if path := b.eval(t, `location.pathname`); path != "/dashboard/contacts/"+hamilton {
		t.Fatalf("the search's link opened %s", path)
	}
	text = b.eval(t, `document.body.innerText`)
	api := e.get(t, "/api/v1/contacts/"+hamilton, info.DemoToken)
	e.expectStatus(t, api, http.StatusOK)
	var read struct {
		Data struct {
			Phone       string `json:"phone"`
			OptInStatus string `json:"opt_in_status"`
		}
	}
	whDecode(t, api.body, &read)
	if !strings.Contains(text, "Margaret Hamilton") || !strings.Contains(text, read.Data.Phone) || !strings.Contains(text, "crm-161") ||
		!strings.Contains(text, "margaret@example.com") || read.Data.OptInStatus != "none" || !strings.Contains(squeezeSpace(text), "SMS opt-in None") {
		t.Fatalf("the contact page shows (API read %s):\n%s", api.body, text)
	}
	if link := b.eval(t, `document.querySelector('a[href="/dashboard/receivables?contact_id=`+hamilton+`"]') ? "yes" : "no"`); link != "yes" {
		t.Error("the contact page has no link to the contact's receivables")
	}
	shots.take(t, b, "contact")

	// A contacts batch with two refused rows, through the API.
	items := []map[string]any{
		{"external_id": "dash-batch-1", "first_name": "Mary", "last_name": "Jackson", "phone": "+14155550171"},
		{"external_id": "dash-batch-2", "first_name": "Bad", "phone": "not a phone"},
		{"external_id": "dash-batch-3", "first_name": "Annie", "last_name": "Easley", "phone": "+14155550173"},
		{"external_id": "dash-batch-4", "first_name": "No phone"},
		{"external_id": "dash-batch-5", "first_name": "Christine", "last_name": "Darden", "phone": "+14155550175"},
	}
	r := e.send(t, http.MethodPost, "/api/v1/contacts/batch", info.DemoToken, map[string]any{"items": items}, nil)
	e.expectStatus(t, r, http.StatusAccepted)
	var submitted struct{ Data batchHeader }
	whDecode(t, r.body, &submitted)
	id := submitted.Data.ID
	h := e.waitForBatch(t, id)
	if h.Status != "partial_failure" || h.SucceededItems != 3 || h.FailedItems != 2 {
		t.Fatalf("the batch ended %+v", h)
	}

	b.navigate(t, base+"/batches?type=contacts")
	row := b.eval(t, `(() => { const a = document.querySelector('a[href="/dashboard/batches/`+id+`"]'); if (!a) return document.body.innerText;
		const r = a.closest('tr'); return ['Type', 'Status', 'Rows', 'Succeeded', 'Failed'].map(l => r.querySelector('td[data-label="' + l + '"]').innerText.trim()).join('|') })()`)
	if row != "Contacts|Partial failure|5|3|2" {
		t.Errorf("the batches list's row shows %q, want Contacts|Partial failure|5|3|2", row)
	}
	shots.take(t, b, "batches")

	// The overview lists it among the recent batches.
	b.navigate(t, base+"/overview")
	if got := b.eval(t, `(() => { const s = document.querySelector('.recent-batches'); return s ? s.innerText : document.body.innerText })()`); !strings.Contains(got, "Recent batches") ||
		!strings.Contains(got, "Partial failure") {
		t.Errorf("the overview's recent batches:\n%s", got)
	}

	// Its page lists the row errors the API lists.
	b.navigate(t, base+"/batches/"+id)
	r = e.get(t, "/api/v1/batches/"+id+"/errors", info.DemoToken)
	e.expectStatus(t, r, http.StatusOK)
	var errs struct {
		Data []struct {
			RowIndex   int    `json:"row_index"`
			ExternalID string `json:"external_id"`
			Field      string `json:"field"`
			Message    string `json:"message"`
		} `json:"data"`
	}
	whDecode(t, r.body, &errs)
	if len(errs.Data) != 2 || errs.Data[0].RowIndex != 1 || errs.Data[1].RowIndex != 3 {
		t.Fatalf("the API's row errors: %s", r.body)
	}
	rows := b.eval(t, `Array.from(document.querySelectorAll('table tbody tr')).map(r => Array.from(r.cells).map(c => c.innerText.trim()).join('|')).join('\n')`)
	for _, want := range errs.Data {
		line := fmt.Sprintf("%d|%s|%s|%s", want.RowIndex, want.ExternalID, want.Field, want.Message)
		if !strings.Contains(rows, line) {
			t.Errorf("the batch page lacks the row error %q:\n%s", line, rows)
		}
	}
	if text := squeezeSpace(b.eval(t, `document.body.innerText`)); !strings.Contains(text, "Contacts batch") || !strings.Contains(text, "Succeeded 3") ||
		!strings.Contains(text, "Failed 2") {
		t.Errorf("the batch page's summary:\n%s", text)
	}
	shots.take(t, b, "batch")
}

// squeezeSpace is text with every run of white space made one space.
func squeezeSpace(text string) string { return strings.Join(strings.Fields(text), " ") }
