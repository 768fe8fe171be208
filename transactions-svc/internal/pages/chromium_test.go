package pages_test

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// chromium runs headless Chromium (Debian's package; `make deps` installs
// it) with args and the URL, and returns its standard output.
func chromium(t *testing.T, args ...string) []byte {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium is not installed (run `make deps` or apt-get install -y chromium): %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
		"--user-data-dir=" + t.TempDir(), "--window-size=390,844"}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.String())
	}
	return stdout.Bytes()
}

// TestChromiumRendersBothPages loads the pay and payout pages in headless
// Chromium at a phone's width: the DOM has the labelled fields, and the
// screenshot is a real rendering (not blank).
func TestChromiumRendersBothPages(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	pages := map[string]struct {
		url    string
		fields []string
	}{
		"pay":    {f.link(t, f.create(t, "receivables")), []string{"cardholder_name", "card_number", "exp_month", "exp_year", "cvc"}},
		"payout": {f.link(t, f.create(t, "payables")), []string{"account_holder_name", "routing_number", "account_number", "card_number"}},
	}
	for name, pg := range pages {
		t.Run(name, func(t *testing.T) {
			dom := string(chromium(t, "--dump-dom", pg.url))
			for _, field := range pg.fields {
				for _, want := range []string{`<label for="` + field + `"`, `id="` + field + `" name="` + field + `"`} {
					if !strings.Contains(dom, want) {
						t.Errorf("DOM lacks %s", want)
					}
				}
			}
			if !strings.Contains(dom, `name="_csrf"`) || !strings.Contains(dom, `name="viewport"`) {
				t.Errorf("DOM lacks the CSRF field or the viewport")
			}
			if name == "payout" && (!strings.Contains(dom, `value="bank_account"`) || !strings.Contains(dom, `value="debit_card"`)) {
				t.Errorf("DOM lacks the destination_type choices")
			}
			shot := filepath.Join(t.TempDir(), name+".png")
			if dir := os.Getenv("SCREENSHOT_DIR"); dir != "" {
				shot = filepath.Join(dir, name+".png")
			}
			chromium(t, "--screenshot="+shot, "--hide-scrollbars", pg.url)
			checkScreenshot(t, shot)
		})
	}
}

// checkScreenshot decodes the PNG and checks it is 390 px wide and holds a
// real page: many colours, not one background.
func checkScreenshot(t *testing.T, path string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 390 || b.Dy() < 600 {
		t.Fatalf("screenshot is %v, want 390 px wide", b)
	}
	if n := colours(img); n < 16 || len(raw) < 10_000 {
		t.Fatalf("screenshot looks blank: %d colours, %d bytes", n, len(raw))
	}
}

func colours(img image.Image) int {
	seen := map[[3]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
		}
	}
	return len(seen)
}
