package pages_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/paylane/paylane/transactions-svc/internal/sandbox"
)

// browse runs headless Chromium at width × 900 px and returns its context.
func browse(t *testing.T, width int) context.Context {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium is not installed (run `make deps` or apt-get install -y chromium): %v", err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(width, 900))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(acancel)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(bcancel)
	return bctx
}

// get runs an action that returns a value in the browser, failing the test
// on an error.
func get[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

// steps runs actions that return nothing.
func steps(t *testing.T, ctx context.Context, what string, a ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, a...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	return get(t, ctx, "text of "+sel, chromedp.Text(chromedp.CSS(sel), chromedp.NodeVisible))
}

// shown reports whether the element matching sel is rendered (not in a
// hidden fieldset).
func shown(t *testing.T, ctx context.Context, sel string) bool {
	t.Helper()
	return get(t, ctx, "visibility of "+sel,
		chromedp.Evaluate[bool](fmt.Sprintf(`document.querySelector(%q).getClientRects().length > 0`, sel)))
}

// fits reports whether the page fits the viewport's width (no sideways
// scrolling on a phone).
func fits(t *testing.T, ctx context.Context) bool {
	t.Helper()
	return get(t, ctx, "page width", chromedp.Evaluate[bool](`document.documentElement.scrollWidth <= window.innerWidth`))
}

// capture keeps a full-page PNG in SCREENSHOT_DIR when it is set.
func capture(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("SCREENSHOT_DIR")
	if dir == "" {
		return
	}
	png := get(t, ctx, "screenshot "+name, chromedp.FullScreenshot(100))
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

func typeInto(sel, v string) chromedp.Action[chromedp.Void] {
	return chromedp.SendKeys(chromedp.CSS(sel), v)
}

// TestChromiumPayerJourney pays a receivable and takes a payout in headless
// Chromium at a desktop's and a phone's width: the tenant's name heads both
// pages, the payout page shows one destination form at a time and switches
// with the radio choice (no script: the pages' CSP allows none), and each
// ends on a receipt with the reference and the last four digits.
func TestChromiumPayerJourney(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.name(t, "Acme Plumbing", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	for _, width := range []int{1280, 375} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			ctx := browse(t, width)
			// The viewport is emulated: a headless window has a minimum width
			// above a phone's.
			var phone []chromedp.EmulateViewportOption
			if width < 600 {
				phone = append(phone, chromedp.EmulateMobile)
			}
			steps(t, ctx, "sizing the viewport", chromedp.EmulateViewport(int64(width), 900, phone...))
			rec := f.create(t, "receivables")
			steps(t, ctx, "opening the pay page", chromedp.Navigate(f.link(t, rec)))
			if payee := text(t, ctx, "#payee"); payee != "Acme Plumbing" {
				t.Errorf("pay page names %q", payee)
			}
			if !fits(t, ctx) {
				t.Errorf("the pay page is wider than %d px", width)
			}
			if w := get(t, ctx, "viewport width", chromedp.Evaluate[int](`window.innerWidth`)); w != width {
				t.Fatalf("the viewport is %d px wide, want %d", w, width)
			}
			capture(t, ctx, fmt.Sprintf("pay-%d", width))
			steps(t, ctx, "paying",
				typeInto("#cardholder_name", "Ada Lovelace"), typeInto("#card_number", sandbox.CardPays),
				typeInto("#exp_month", "12"), typeInto("#exp_year", "2030"), typeInto("#cvc", "123"),
				chromedp.Click(chromedp.CSS("button[type=submit]")), chromedp.WaitVisible(chromedp.CSS("#receipt")))
			capture(t, ctx, fmt.Sprintf("paid-%d", width))
			if ref, method := text(t, ctx, "#receipt-reference"), text(t, ctx, "#receipt-method"); ref != rec.ID || method != "Visa ending 4242" {
				t.Errorf("receipt: reference %q (want %s), method %q", ref, rec.ID, method)
			}
			if got := f.show(t, "receivables", rec.ID); got.Status != "paid" {
				t.Errorf("receivable %s after paying in the browser", got.Status)
			}

			pay := f.create(t, "payables")
			steps(t, ctx, "opening the payout page", chromedp.Navigate(f.link(t, pay)))
			if payee := text(t, ctx, "#payee"); payee != "Acme Plumbing" {
				t.Errorf("payout page names %q", payee)
			}
			if !fits(t, ctx) {
				t.Errorf("the payout page is wider than %d px", width)
			}
			if bank, card := shown(t, ctx, "#routing_number"), shown(t, ctx, "#card_number"); !bank || card {
				t.Errorf("first load: bank form shown %v, card form shown %v; want only the bank form", bank, card)
			}
			capture(t, ctx, fmt.Sprintf("payout-bank-%d", width))
			steps(t, ctx, "choosing a debit card", chromedp.Click(chromedp.CSS("#destination_type_card")))
			if bank, card := shown(t, ctx, "#routing_number"), shown(t, ctx, "#card_number"); bank || !card {
				t.Errorf("after choosing a debit card: bank form shown %v, card form shown %v; want only the card form", bank, card)
			}
			capture(t, ctx, fmt.Sprintf("payout-card-%d", width))
			steps(t, ctx, "taking the payout",
				typeInto("#account_holder_name", "Ada Lovelace"), typeInto("#card_number", debitCard("4321")),
				chromedp.Click(chromedp.CSS("button[type=submit]")), chromedp.WaitVisible(chromedp.CSS("#receipt")))
			capture(t, ctx, fmt.Sprintf("paid-out-%d", width))
			if ref, method := text(t, ctx, "#receipt-reference"), text(t, ctx, "#receipt-method"); ref != pay.ID || method != "Debit card ending 4321" {
				t.Errorf("payout receipt: reference %q (want %s), method %q", ref, pay.ID, method)
			}
			if got := f.show(t, "payables", pay.ID); got.Status != "disbursed" {
				t.Errorf("payable %s after the browser's payout", got.Status)
			}
		})
	}
}
