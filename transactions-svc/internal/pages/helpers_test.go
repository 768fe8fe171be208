package pages_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/transactions-svc/internal/sandbox"
	"github.com/paylane/paylane/transactions-svc/internal/testenv"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// fixture is a tenant with a contact on a served instance, and a browser.
type fixture struct {
	env     *testenv.Env
	tenant  string
	token   string
	contact string
	base    string
	browser *http.Client
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	e := testenv.New(t)
	tenant := ids.New()
	c := e.Contact(t, tenant, "cust-1", "Ada", "+14155550123")
	jar, _ := cookiejar.New(nil)
	return fixture{env: e, tenant: tenant, token: e.Token(t, tenant), contact: c.ID, base: e.Serve(t),
		browser: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

type item struct {
	ID             string  `json:"id"`
	Status         string  `json:"status"`
	PaymentLinkURL *string `json:"payment_link_url"`
	FailureReason  *string `json:"failure_reason"`
	LinkExpiresAt  *string `json:"link_expires_at"`
}

// create makes a receivable or payable through the API.
func (f fixture) create(t *testing.T, path string) item {
	t.Helper()
	r := f.env.Do(t, http.MethodPost, "/api/v1/"+path, f.token, fmt.Sprintf(`{"contact_id":%q,"amount":4200,"description":"Order 7"}`, f.contact))
	if r.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	var o struct{ Data item }
	r.JSON(t, &o)
	return o.Data
}

func (f fixture) show(t *testing.T, path, id string) item {
	t.Helper()
	var o struct{ Data item }
	f.env.Do(t, http.MethodGet, "/api/v1/"+path+"/"+id, f.token, "").JSON(t, &o)
	return o.Data
}

// link returns the local URL of an item's signed link: the receivable's
// payment_link_url, or the payout link read from the SMS notification
// (the text transactions-svc keeps of it).
func (f fixture) link(t *testing.T, it item) string {
	t.Helper()
	if it.PaymentLinkURL != nil {
		return f.local(*it.PaymentLinkURL)
	}
	re := regexp.MustCompile(`https://\S+/l/p/` + it.ID + `\?expires=\d+&signature=[0-9a-f]+`)
	last := ""
	for _, n := range f.env.Notifications(t, f.tenant) {
		if m := re.FindString(n.Body); m != "" {
			last = m
		}
	}
	if last == "" {
		t.Fatalf("no payout link for %s", it.ID)
	}
	return f.local(last)
}

// local points a public link at the served instance.
func (f fixture) local(public string) string {
	return f.base + strings.TrimPrefix(public, testenv.PublicBaseURL)
}

type answer struct {
	status int
	body   string
	header http.Header
}

func (f fixture) get(t *testing.T, u string, headers ...string) answer {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	return f.send(t, req, headers)
}

func (f fixture) post(t *testing.T, u string, form url.Values, headers ...string) answer {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return f.send(t, req, headers)
}

func (f fixture) send(t *testing.T, req *http.Request, headers []string) answer {
	t.Helper()
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	resp, err := f.browser.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, body: string(b), header: resp.Header}
}

// csrf reads the form's token from a page.
func csrf(t *testing.T, a answer) string {
	t.Helper()
	m := regexp.MustCompile(`name="_csrf" value="([0-9a-f]+)"`).FindStringSubmatch(a.body)
	if m == nil {
		t.Fatalf("no CSRF token in page %d:\n%s", a.status, a.body)
	}
	return m[1]
}

// open loads the page at u and returns the CSRF token of its form.
func (f fixture) open(t *testing.T, u string) string {
	t.Helper()
	a := f.get(t, u)
	if a.status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", u, a.status, a.body)
	}
	return csrf(t, a)
}

func card(number string) url.Values {
	return url.Values{"card_number": {number}, "exp_month": {"12"}, "exp_year": {"2030"}, "cvc": {"123"}, "cardholder_name": {"Ada Lovelace"}}
}

// debitCard returns a Luhn-valid 16-digit card number ending in last4.
func debitCard(last4 string) string {
	for d := '0'; d <= '9'; d++ {
		n := "40000000000" + string(d) + last4
		if sandbox.Luhn(n) {
			return n
		}
	}
	panic("no Luhn digit")
}

func expectPage(t *testing.T, a answer, status int, contains ...string) {
	t.Helper()
	if a.status != status {
		t.Fatalf("status %d, want %d:\n%s", a.status, status, a.body)
	}
	for _, s := range contains {
		if !strings.Contains(a.body, s) {
			t.Fatalf("page lacks %q:\n%s", s, a.body)
		}
	}
}
