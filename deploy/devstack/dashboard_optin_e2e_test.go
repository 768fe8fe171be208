package devstack

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image/png"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestDashboardOptInInChromium drives the opt-in pages of the dashboard in
// headless Chromium through the gateway as the demo owner: an opt-in code
// created in the dashboard shows its QR image (a valid PNG), a number
// subscribed on the code's landing page appears in the code's counts and
// in the consents, and a contact's number suppressed in the dashboard is on
// the API's suppression list until it is removed in the dashboard again.
// With UPDATE_SCREENSHOTS=1 each page is captured at 1280 and 375 px into
// docs/dashboard/.
func TestDashboardOptInInChromium(t *testing.T) {
	stack, e := startWithClient(t)
	info := stack.info
	b := startBrowser(t)
	shots := screenshotDir(t)
	base := info.GatewayURL + "/dashboard"

	b.navigate(t, base+"/sign-in")
	b.submit(t, fillJS(map[string]string{"email": info.DemoUserEmail, "password": info.DemoUserPassword}, "button[type=submit]"))

	// Create a code in the dashboard: it opens on its own page.
	b.navigate(t, base+"/opt-in-codes")
	if text := b.eval(t, `document.body.innerText`); !strings.Contains(text, "New opt-in code") {
		t.Fatalf("the opt-in codes page:\n%s", text)
	}
	b.submit(t, `
		document.getElementById('code-name').value = 'Shop counter';
		document.querySelector('form[method=post][action="/dashboard/opt-in-codes"] button[type=submit]').click(); "submitted"`)
	if text := b.eval(t, `document.body.innerText`); !strings.Contains(text, "The opt-in code is created") || !strings.Contains(text, "Shop counter") {
		t.Fatalf("after creating a code:\n%s", text)
	}
	codePath := b.eval(t, `location.pathname`)
	codeID := strings.TrimPrefix(codePath, "/dashboard/opt-in-codes/")
	landing := b.eval(t, `document.querySelector('.facts a').href`)
	if !strings.HasPrefix(landing, info.GatewayURL+"/l/o/") {
		t.Fatalf("the code's landing page is %q, want one on the gateway", landing)
	}
	var code struct {
		Data struct {
			URL    string `json:"url"`
			IsLive bool   `json:"is_live"`
		} `json:"data"`
	}
	r := e.get(t, "/api/v1/opt-in-codes/"+url.PathEscape(codeID), info.DemoToken)
	e.expectStatus(t, r, http.StatusOK)
	if err := json.Unmarshal(r.body, &code); err != nil || code.Data.URL != landing || !code.Data.IsLive {
		t.Fatalf("the API shows the dashboard's code as %s (%v)", r.body, err)
	}
	// The QR image loads and is a PNG.
	if w := b.eval(t, `document.getElementById('qr-image').complete && document.getElementById('qr-image').naturalWidth`); w != "320" {
		t.Fatalf("the QR image's natural width is %s, want 320", w)
	}
	src := b.eval(t, `document.getElementById('qr-image').getAttribute('src')`)
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(src, "data:image/png;base64,"))
	if err != nil {
		t.Fatalf("the QR image is no base64 PNG: %v", err)
	}
	if img, err := png.Decode(bytes.NewReader(raw)); err != nil || img.Bounds().Dx() != 320 {
		t.Fatalf("the QR image is no 320 px PNG: %v", err)
	}
	download := b.eval(t, `(() => { const x = new XMLHttpRequest(); x.open('GET', document.querySelector('a[download]').href, false);
		x.overrideMimeType('text/plain; charset=x-user-defined'); x.send();
		return x.status + ' ' + x.getResponseHeader('content-type') + ' ' + x.responseText.slice(1, 4); })()`)
	if download != "200 image/png PNG" {
		t.Errorf("the download link answers %q, want a PNG", download)
	}

	// A customer subscribes on the landing page (single opt-in: confirmed).
	const subscriber = "+14155550142"
	b.navigate(t, landing)
	b.submit(t, `
		document.getElementById('phone').value = '`+subscriber+`';
		document.getElementById('consent').checked = true;
		document.querySelector('form button[type=submit]').click(); "submitted"`)
	b.navigate(t, base+codePath[len("/dashboard"):])
	if got := b.eval(t, `document.getElementById('count-confirmed').innerText`); got != "1" {
		t.Fatalf("the code page counts %s confirmed consents after a sign-up, want 1:\n%s", got, b.eval(t, `document.body.innerText`))
	}
	shots.take(t, b, "opt-in-code")
	b.navigate(t, base+"/opt-in-codes")
	if text := b.eval(t, `document.querySelector('table').innerText`); !strings.Contains(text, "Shop counter") || !strings.Contains(text, landing) {
		t.Fatalf("the codes list:\n%s", text)
	}
	if got := b.eval(t, `Array.from(document.querySelectorAll('tbody tr')).find(r => r.innerText.includes('Shop counter')).querySelector('td[data-label=Confirmed]').innerText`); got != "1" {
		t.Errorf("the codes list counts %s confirmed consents, want 1", got)
	}
	shots.take(t, b, "opt-in-codes")

	// The consent, from the Consents link, filtered to confirmed ones.
	b.submit(t, `document.querySelector('a[href="/dashboard/opt-ins"]').click(); "submitted"`)
	b.submit(t, `
		document.getElementById('f-status').value = 'confirmed';
		document.querySelector('form.optin-filters button').click(); "submitted"`)
	if text := b.eval(t, `document.body.innerText`); !strings.Contains(text, "Confirmed") || !strings.Contains(text, "Shop counter") {
		t.Fatalf("the consents page:\n%s", text)
	}
	if q := b.eval(t, `location.search`); !strings.Contains(q, "status=confirmed") {
		t.Errorf("the filter is not in the address: %s", q)
	}
	shots.take(t, b, "consents")

	// Suppress a contact's number in the dashboard, typed in national format.
	contact := e.send(t, http.MethodPost, "/api/v1/contacts", info.DemoToken, map[string]any{"first_name": "Sam", "phone": "+14155550177"}, nil)
	e.expectStatus(t, contact, http.StatusCreated)
	var created struct {
		Data struct {
			PhoneID string `json:"phone_id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(contact.body, &created); err != nil {
		t.Fatal(err)
	}
	b.navigate(t, base+"/suppression")
	b.submit(t, `
		document.getElementById('sup-phone').value = '+1 415 555 0100';
		document.querySelector('form[action="/dashboard/suppression"] button[type=submit]').click(); "submitted"`)
	if text := b.eval(t, `document.body.innerText`); !strings.Contains(text, "No contact has this number") {
		t.Fatalf("a number without a contact gave:\n%s", text)
	}
	b.submit(t, `
		document.getElementById('sup-phone').value = '+1 (415) 555-0177';
		document.getElementById('sup-reason').value = 'complaint';
		document.querySelector('form[action="/dashboard/suppression"] button[type=submit]').click(); "submitted"`)
	if text := b.eval(t, `document.body.innerText`); !strings.Contains(text, "is on the suppression list") || !strings.Contains(text, "0177") {
		t.Fatalf("after suppressing:\n%s", text)
	}
	shots.take(t, b, "suppression")
	type entry struct {
		PhoneLast4     string  `json:"phone_last4"`
		ContactPhoneID *string `json:"contact_phone_id"`
		Reason         string  `json:"reason"`
	}
	suppressed := func() []entry {
		r := e.get(t, "/api/v1/suppression-list?channel=sms&per_page=100", info.DemoToken)
		e.expectStatus(t, r, http.StatusOK)
		var list struct {
			Data []entry `json:"data"`
		}
		if err := json.Unmarshal(r.body, &list); err != nil {
			t.Fatal(err)
		}
		var out []entry
		for _, s := range list.Data {
			if s.PhoneLast4 == "0177" {
				out = append(out, s)
			}
		}
		return out
	}
	if got := suppressed(); len(got) != 1 || got[0].ContactPhoneID == nil || *got[0].ContactPhoneID != created.Data.PhoneID || got[0].Reason != "complaint" {
		t.Fatalf("the API's suppression list holds %+v, want the contact's phone record with reason complaint", got)
	}

	// Remove it in the dashboard: the API lists it no more.
	b.submit(t, `document.querySelector('button[aria-label="Remove the number ending 0177 from the list"]').click(); "submitted"`)
	if text := b.eval(t, `document.body.innerText`); !strings.Contains(text, "is off the suppression list") || strings.Contains(text, "•••• 0177") {
		t.Fatalf("after removing:\n%s", text)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(suppressed()) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the API still lists the number the dashboard removed")
		}
		time.Sleep(100 * time.Millisecond)
	}
}
