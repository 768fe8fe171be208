package striperail_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paylane/paylane/libs/breaker"
	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/transactions-svc/internal/rail"
	"github.com/paylane/paylane/transactions-svc/internal/rail/striperail"
)

// recorder forwards to stripe-mock and keeps what each request carried.
type recorder struct {
	mu       sync.Mutex
	requests []recorded
}

type recorded struct {
	method, path, idempotencyKey string
	form                         url.Values
}

func (r *recorder) last(t *testing.T) recorded {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.requests) == 0 {
		t.Fatal("no request reached Stripe")
	}
	return r.requests[len(r.requests)-1]
}

// stripe starts stripe-mock behind a recording proxy and returns a client
// of it.
func stripe(t *testing.T) (*striperail.Client, *recorder) {
	t.Helper()
	target, err := url.Parse(testkit.StripeMock(t))
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		rec.mu.Lock()
		rec.requests = append(rec.requests, recorded{method: r.Method, path: r.URL.Path,
			idempotencyKey: r.Header.Get("Idempotency-Key"), form: r.PostForm})
		rec.mu.Unlock()
		r.Body = http.NoBody
		r.ContentLength = 0
		if len(r.PostForm) > 0 {
			body := r.PostForm.Encode()
			r.Body, r.ContentLength = readCloser(body), int64(len(body))
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return striperail.New(striperail.Config{APIBase: srv.URL, Timeout: 5 * time.Second}), rec
}

func TestCheckKey(t *testing.T) {
	t.Parallel()
	c, _ := stripe(t)
	account, err := c.CheckKey(context.Background(), "T1", "sk_test_123")
	if err != nil || !strings.HasPrefix(account, "acct_") {
		t.Fatalf("CheckKey(test key) = %q, %v; want an account id", account, err)
	}
	// stripe-mock accepts test keys only: a live key is refused as Stripe
	// refuses an unknown key.
	if _, err := c.CheckKey(context.Background(), "T1", "sk_live_123"); !errors.Is(err, rail.ErrKeyRefused) {
		t.Fatalf("CheckKey(refused key) = %v, want ErrKeyRefused", err)
	}
	for key, want := range map[string]string{"sk_test_a": "test", "rk_live_b": "live", "pk_test_c": "", "x": ""} {
		if got := striperail.Mode(key); got != want {
			t.Errorf("Mode(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestChargeOpensACheckoutSession(t *testing.T) {
	t.Parallel()
	c, rec := stripe(t)
	ad := c.Adapter("RAIL1", "sk_test_123")
	res, err := ad.Charge(context.Background(), rail.Charge{ReceivableID: "01JD3X0Q4Z8W2E5R7T9Y1V3K5M", Amount: 4200,
		Currency: "EUR", Description: "Invoice 42", IdempotencyKey: "01JD3X0Q4Z8W2E5R7T9Y1V3K5M",
		ReturnURL: "https://pay.example/l/r/x?checkout=return", CancelURL: "https://pay.example/l/r/x?checkout=cancel"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != rail.Redirect || !strings.HasPrefix(res.Reference, "cs_") || !strings.HasPrefix(res.URL, "https://") {
		t.Fatalf("Charge = %+v, want a redirect to a checkout session", res)
	}
	got := rec.last(t)
	want := map[string]string{"mode": "payment", "client_reference_id": "01JD3X0Q4Z8W2E5R7T9Y1V3K5M",
		"line_items[0][price_data][unit_amount]": "4200", "line_items[0][price_data][currency]": "eur",
		"metadata[paylane_receivable_id]":                      "01JD3X0Q4Z8W2E5R7T9Y1V3K5M",
		"payment_intent_data[metadata][paylane_receivable_id]": "01JD3X0Q4Z8W2E5R7T9Y1V3K5M",
		"success_url": "https://pay.example/l/r/x?checkout=return"}
	if got.path != "/v1/checkout/sessions" || got.idempotencyKey != "01JD3X0Q4Z8W2E5R7T9Y1V3K5M" {
		t.Fatalf("request %s with key %q", got.path, got.idempotencyKey)
	}
	for k, v := range want {
		if got.form.Get(k) != v {
			t.Errorf("%s = %q, want %q", k, got.form.Get(k), v)
		}
	}
}

func TestVerifyOnboardsAndDisburseTransfers(t *testing.T) {
	t.Parallel()
	c, rec := stripe(t)
	ad := c.Adapter("RAIL1", "sk_test_123")
	res, err := ad.Verify(context.Background(), rail.Verify{PayableID: "P1", AccountKey: "recipient-1",
		ReturnURL: "https://pay.example/l/p/x?onboarding=return", RefreshURL: "https://pay.example/l/p/x"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != rail.Redirect || !strings.HasPrefix(res.Reference, "acct_") || res.URL == "" {
		t.Fatalf("Verify = %+v, want a redirect to onboarding of a new account", res)
	}
	if got := rec.last(t); got.path != "/v1/account_links" || got.form.Get("account") != res.Reference ||
		got.form.Get("type") != "account_onboarding" || !strings.HasPrefix(got.idempotencyKey, "account-link-"+res.Reference) {
		t.Fatalf("account link request %+v", got)
	}
	created := false
	for _, r := range rec.requests {
		if r.method == http.MethodPost && r.path == "/v1/accounts" {
			created = r.idempotencyKey == "account-recipient-1" && r.form.Get("capabilities[transfers][requested]") == "true"
		}
	}
	if !created {
		t.Fatal("no account created with the recipient's idempotency key and the transfers capability")
	}
	// A known account is read back, not created again; stripe-mock's
	// account has its transfers capability active, so it is ready.
	n := len(rec.requests)
	again, err := ad.Verify(context.Background(), rail.Verify{PayableID: "P1", Account: res.Reference, AccountKey: "recipient-1"})
	if err != nil || again.Outcome != rail.Approved || again.Reference != res.Reference {
		t.Fatalf("Verify(known account) = %+v, %v", again, err)
	}
	for _, r := range rec.requests[n:] {
		if r.method == http.MethodPost && r.path == "/v1/accounts" {
			t.Fatal("a second account was created")
		}
	}
	tr, err := ad.Disburse(context.Background(), rail.Disbursement{PayableID: "P1", Amount: 700, Currency: "USD",
		Account: res.Reference, IdempotencyKey: "P1"})
	if err != nil || tr.Outcome != rail.Approved || !strings.HasPrefix(tr.Reference, "tr_") {
		t.Fatalf("Disburse = %+v, %v", tr, err)
	}
	if got := rec.last(t); got.path != "/v1/transfers" || got.idempotencyKey != "P1" || got.form.Get("amount") != "700" ||
		got.form.Get("destination") != res.Reference || got.form.Get("metadata[paylane_payable_id]") != "P1" {
		t.Fatalf("transfer request %+v", got)
	}
}

// TestStripeDownIsUnavailable: no answer is rail.ErrUnavailable (the call
// may be made again with its key), and the breaker opens after repeated
// failures so later calls fail at once.
func TestStripeDownIsUnavailable(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	c := striperail.New(striperail.Config{APIBase: dead, Timeout: time.Second})
	ad := c.Adapter("RAIL1", "sk_test_123")
	for i := range breaker.DefaultThreshold + 1 {
		_, err := ad.Disburse(context.Background(), rail.Disbursement{PayableID: "P1", Amount: 1, Currency: "USD", Account: "acct_1", IdempotencyKey: "P1"})
		if !errors.Is(err, rail.ErrUnavailable) {
			t.Fatalf("call %d: %v, want ErrUnavailable", i, err)
		}
		if open := errors.Is(err, breaker.ErrOpen); open != (i == breaker.DefaultThreshold) {
			t.Fatalf("call %d: breaker open %v: %v", i, open, err)
		}
	}
	if _, err := c.CheckKey(context.Background(), "T1", "sk_test_123"); !errors.Is(err, rail.ErrUnavailable) {
		t.Fatalf("CheckKey = %v, want ErrUnavailable", err)
	}
}

func readCloser(s string) io.ReadCloser { return io.NopCloser(strings.NewReader(s)) }
