package devstack

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDashboardTransactionsInChromium drives the receivables and payables
// pages in headless Chromium through the real stack: receivables and a
// payable created through the API are listed (a status filter narrows the
// list and stays in the form), a receivable's detail shows its state
// history and its SMS with the state optin-svc reported, and cancelling it
// from the dashboard has the API's effect: the API reads it cancelled and
// a webhook endpoint subscribed to receivable.cancelled receives the
// event. The overview shows the last 30 days' counts and amounts. With
// UPDATE_SCREENSHOTS=1 the pages are captured into docs/dashboard/.
func TestDashboardTransactionsInChromium(t *testing.T) {
	stack, e := startWithClient(t)
	info := stack.info
	b := startBrowser(t)
	shots := screenshotDir(t)
	base := info.GatewayURL + "/dashboard"

	rc := newWHReceiver(t, filepath.Join(info.Root, "tls"))
	e.expectStatus(t, e.whSend(t, http.MethodPost, "/api/v1/webhook-endpoints", map[string]any{
		"name": "cancellations", "url": rc.url, "subscribed_events": []string{"receivable.cancelled"},
	}), http.StatusCreated)

	contact := func(first, last, phone string) string {
		r := e.whSend(t, http.MethodPost, "/api/v1/contacts", map[string]any{"first_name": first, "last_name": last, "phone": phone})
		e.expectStatus(t, r, http.StatusCreated)
		var c struct{ Data struct{ ID string } }
		whDecode(t, r.body, &c)
		return c.Data.ID
	}
	ada, grace := contact("Ada", "Lovelace", "+14155550171"), contact("Grace", "Hopper", "+14155550172")
	create := func(path string, body map[string]any) (string, string) {
		r := e.whSend(t, http.MethodPost, path, body)
		e.expectStatus(t, r, http.StatusCreated)
		var it struct{ Data struct{ ID, Status string } }
		whDecode(t, r.body, &it)
		return it.Data.ID, it.Data.Status
	}
	inv1, status1 := create("/api/v1/receivables", map[string]any{"contact_id": ada, "amount": 4200, "external_id": "INV-1001",
		"description": "Garden design, November"})
	_, status2 := create("/api/v1/receivables", map[string]any{"contact_id": grace, "amount": 12550, "external_id": "INV-1002",
		"description": "Compiler consulting", "due_date": time.Now().AddDate(0, 0, 14).Format(time.DateOnly)})
	create("/api/v1/receivables", map[string]any{"contact_id": ada, "amount": 990, "external_id": "INV-1003",
		"send_at": time.Now().Add(48 * time.Hour).UTC().Format(time.RFC3339)})
	create("/api/v1/payables", map[string]any{"contact_id": grace, "amount": 30000, "external_id": "PAY-2001", "description": "Speaker fee"})
	if status1 != status2 {
		t.Fatalf("two receivables sent at once have statuses %s and %s", status1, status2)
	}

	b.navigate(t, base+"/sign-in")
	b.submit(t, fillJS(map[string]string{"email": info.DemoUserEmail, "password": info.DemoUserPassword}, "button[type=submit]"))

	// The list shows every receivable, newest first, with its contact's name.
	b.navigate(t, base+"/receivables")
	text := b.eval(t, `document.body.innerText`)
	for _, want := range []string{"INV-1001", "INV-1002", "INV-1003", "Ada Lovelace", "Grace Hopper", "$42.00", "$125.50", "$9.90", "3 in all"} {
		if !strings.Contains(text, want) {
			t.Fatalf("the receivables list lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "PAY-2001") {
		t.Error("the receivables list shows a payable")
	}
	shots.take(t, b, "receivables")

	// A status filter narrows the list and stays in the form.
	b.submit(t, fmt.Sprintf(`document.getElementById('f-status').value = %q;
		document.querySelector('form.filters button[type=submit]').click(); "submitted"`, status1))
	text = b.eval(t, `document.body.innerText`)
	if !strings.Contains(text, "INV-1001") || !strings.Contains(text, "INV-1002") || strings.Contains(text, "INV-1003") ||
		b.eval(t, `document.getElementById('f-status').value`) != status1 || !strings.Contains(b.eval(t, `location.search`), "status="+status1) {
		t.Fatalf("filtered by %s the list shows:\n%s", status1, text)
	}

	// The detail: its state history and its SMS, whose state optin-svc
	// reports back.
	b.submit(t, `document.querySelector('a[href="/dashboard/receivables/`+inv1+`"]').click(); "submitted"`)
	deadline := time.Now().Add(60 * time.Second)
	for {
		text = b.eval(t, `document.body.innerText`)
		msgs := b.eval(t, `document.querySelector('section[aria-labelledby=messages-title]').innerText`)
		if strings.Contains(msgs, "Payment link") && (strings.Contains(msgs, "Sent") || strings.Contains(msgs, "Delivered")) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the receivable's messages never show a sent SMS:\n%s", text)
		}
		time.Sleep(500 * time.Millisecond)
		b.navigate(t, base+"/receivables/"+inv1)
	}
	history := b.eval(t, `document.querySelector('section[aria-labelledby=history-title]').innerText`)
	if !strings.Contains(history, "Created") || !strings.Contains(text, "Ada Lovelace") || !strings.Contains(text, "Garden design, November") {
		t.Fatalf("the receivable's page shows:\n%s", text)
	}
	shots.take(t, b, "receivable")

	// Cancel from the dashboard: the API's own route, event and webhook.
	b.submit(t, `document.querySelector('form[action$="/cancel"] button').click(); "submitted"`)
	text = b.eval(t, `document.body.innerText`)
	if !strings.Contains(text, "The receivable is cancelled.") {
		t.Fatalf("after cancelling:\n%s", text)
	}
	if h := b.eval(t, `document.querySelector('section[aria-labelledby=history-title]').innerText`); !strings.Contains(h, "Cancelled") {
		t.Errorf("the history after the cancel:\n%s", h)
	}
	r := e.get(t, "/api/v1/receivables/"+inv1, info.DemoToken)
	e.expectStatus(t, r, http.StatusOK)
	var got struct{ Data struct{ Status string } }
	whDecode(t, r.body, &got)
	if got.Data.Status != "cancelled" {
		t.Errorf("the API reads the receivable %s after the dashboard cancelled it", got.Data.Status)
	}
	rc.waitFor(t, func(b whBody) bool { return b.Type == "receivable.cancelled" && b.Data.ID == inv1 })

	b.navigate(t, base+"/payables")
	if text := b.eval(t, `document.body.innerText`); !strings.Contains(text, "PAY-2001") || !strings.Contains(text, "$300.00") ||
		!strings.Contains(text, "Grace Hopper") || strings.Contains(text, "INV-1001") {
		t.Fatalf("the payables list shows:\n%s", text)
	}
	shots.take(t, b, "payables")

	b.navigate(t, base+"/overview")
	text = b.eval(t, `document.body.innerText`)
	for _, want := range []string{"Last 30 days", "3 in all · $177.40", "1 in all · $300.00", "$42.00"} {
		if !strings.Contains(text, want) {
			t.Fatalf("the overview lacks %q:\n%s", want, text)
		}
	}
	shots.take(t, b, "overview")
}
