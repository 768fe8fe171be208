package devstack

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// payInChromium is the path of a person with a phone: headless Chromium
// (Debian's package) opens the payment link of a new receivable through the
// gateway over HTTPS, fills the pay form as typed and submits it with its
// button (the page has no script: the browser's own form post, with its
// cookie and under the page's policy), sees "Payment received", and the API
// then shows the receivable paid. The payout page goes the same way to a
// disbursed payable. SCREENSHOT_DIR keeps the screenshots.
func (x *transactionsE2E) payInChromium(t *testing.T) {
	b := startBrowser(t)
	it, _, _ := x.newItem(t, "receivables")
	b.fillAndSubmit(t, *it.PaymentLinkURL, "pay", map[string]string{"cardholder_name": "Ada Lovelace",
		"card_number": "4242 4242 4242 4242", "exp_month": "12", "exp_year": "2031", "cvc": "123"},
		"Payment request", "Payment received")
	got, _ := x.item(t, x.call(t, http.MethodGet, "/api/v1/receivables/"+it.ID, x.token, "", nil), http.StatusOK)
	if got.Status != "paid" {
		t.Fatalf("after paying in Chromium the receivable is %q", got.Status)
	}

	pay, link := x.payoutLink(t)
	b.fillAndSubmit(t, link, "payout", map[string]string{"destination_type_card": "", "account_holder_name": "Ada Lovelace",
		"card_number": "4000 0566 5566 5556"}, "Your payout", "Payout sent")
	got, _ = x.item(t, x.call(t, http.MethodGet, "/api/v1/payables/"+pay.ID, x.token, "", nil), http.StatusOK)
	if got.Status != "disbursed" || got.Destination == nil || got.Destination.Type != "debit_card" || got.Destination.Last4 != "5556" {
		t.Fatalf("after the payout in Chromium: %+v", got)
	}
}

// fillAndSubmit opens link, checks the page shows before, types values
// into the fields with those ids (an empty value clicks the element: a
// radio button), submits the form with its button and checks the answer
// page shows after and stays on the link. Both pages are captured.
func (b *browser) fillAndSubmit(t *testing.T, link, name string, values map[string]string, before, after string) {
	t.Helper()
	b.navigate(t, link)
	if text := b.eval(t, `document.body.innerText`); !strings.Contains(text, before) || !strings.Contains(text, "$42.00") {
		t.Fatalf("the %s page in Chromium shows:\n%s", name, text)
	}
	b.screenshot(t, "browser-"+name+"-form.png")
	var js strings.Builder
	for id, v := range values {
		if v == "" {
			fmt.Fprintf(&js, "document.getElementById(%q).click();\n", id)
			continue
		}
		fmt.Fprintf(&js, "document.getElementById(%q).value = %q;\n", id, v)
	}
	js.WriteString(`document.querySelector('button[type=submit]').click(); "submitted"`)
	b.submit(t, js.String())
	if text := b.eval(t, `document.body.innerText`); !strings.Contains(text, after) {
		t.Fatalf("after submitting the %s form Chromium shows:\n%s", name, text)
	}
	if url := b.eval(t, `location.href`); url != link {
		t.Errorf("the %s form posted to %s, want its own link", name, url)
	}
	b.screenshot(t, "browser-"+name+"-done.png")
}

// browser is headless Chromium driven over the DevTools protocol on a
// pipe (--remote-debugging-pipe: commands on fd 3, answers on fd 4, each
// message a JSON object ended by NUL), attached to one page.
type browser struct {
	cmd     *exec.Cmd
	in      *os.File
	session string

	mu      sync.Mutex
	nextID  int
	waiting map[int]chan cdpMessage
	loads   chan struct{}
}

type cdpMessage struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

func startBrowser(t *testing.T) *browser {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium is not installed (run `make deps` or apt-get install -y chromium): %v", err)
	}
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
		"--ignore-certificate-errors", "--remote-debugging-pipe",
		"--user-data-dir="+t.TempDir(), "about:blank")
	cmd.ExtraFiles = []*os.File{cmdR, outW} // fd 3, fd 4
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cmdR.Close()
	outW.Close()
	b := &browser{cmd: cmd, in: cmdW, waiting: map[int]chan cdpMessage{}, loads: make(chan struct{}, 8)}
	go b.read(outR)
	t.Cleanup(func() {
		_, _ = b.send("", "Browser.close", nil)
		cmdW.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("chromium stderr:\n%s", stderr.String())
		}
	})
	var target struct {
		TargetID string `json:"targetId"`
	}
	b.call(t, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	b.call(t, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached)
	b.session = attached.SessionID
	b.call(t, b.session, "Page.enable", nil, nil)
	// A phone: 390 CSS px wide, honouring the page's viewport meta.
	b.call(t, b.session, "Emulation.setDeviceMetricsOverride", map[string]any{
		"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": true}, nil)
	return b
}

// read dispatches Chromium's messages: answers to their caller, page loads
// to loads.
func (b *browser) read(r *os.File) {
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20) // screenshots are large
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		if i := bytes.IndexByte(data, 0); i >= 0 {
			return i + 1, data[:i], nil
		}
		if atEOF && len(data) > 0 {
			return len(data), data, nil
		}
		return 0, nil, nil
	})
	for sc.Scan() {
		var m cdpMessage
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		if m.ID == 0 {
			if m.Method == "Page.loadEventFired" && m.SessionID == b.session {
				select {
				case b.loads <- struct{}{}:
				default:
				}
			}
			continue
		}
		b.mu.Lock()
		ch := b.waiting[m.ID]
		delete(b.waiting, m.ID)
		b.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	}
}

// send writes a command and returns the channel its answer arrives on.
func (b *browser) send(session, method string, params any) (chan cdpMessage, error) {
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	ch := make(chan cdpMessage, 1)
	b.waiting[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	raw, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	_, err = b.in.Write(append(raw, 0))
	return ch, err
}

// call sends a command and decodes its result into out.
func (b *browser) call(t *testing.T, session, method string, params, out any) {
	t.Helper()
	ch, err := b.send(session, method, params)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			t.Fatalf("%s: %s", method, m.Error.Message)
		}
		if out != nil {
			if err := json.Unmarshal(m.Result, out); err != nil {
				t.Fatalf("%s: %v", method, err)
			}
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("%s: no answer from Chromium in 60 s", method)
	}
}

// drainLoads forgets load events that came before the action to wait for.
func (b *browser) drainLoads() {
	for {
		select {
		case <-b.loads:
		default:
			return
		}
	}
}

// awaitLoad waits for the page's next load event.
func (b *browser) awaitLoad(t *testing.T, what string) {
	t.Helper()
	select {
	case <-b.loads:
	case <-time.After(20 * time.Second):
		t.Fatalf("%s: the page did not load in 20 s", what)
	}
}

// navigate opens url in the page, as a link tapped in a message app.
func (b *browser) navigate(t *testing.T, url string) {
	t.Helper()
	b.drainLoads()
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	b.call(t, b.session, "Page.navigate", map[string]any{"url": url}, &nav)
	if nav.ErrorText != "" {
		t.Fatalf("navigating to the link: %s", nav.ErrorText)
	}
	b.awaitLoad(t, "opening the link")
}

// submit runs js, which submits the page's form, and waits for the answer
// page to load.
func (b *browser) submit(t *testing.T, js string) {
	t.Helper()
	b.drainLoads()
	if got := b.eval(t, js); got != "submitted" {
		t.Fatalf("filling the form: %q", got)
	}
	b.awaitLoad(t, "submitting the form")
}

// eval evaluates a JavaScript expression in the page (from DevTools, as a
// person's input; the page itself runs no script) and returns its value as
// text.
func (b *browser) eval(t *testing.T, expr string) string {
	t.Helper()
	var res struct {
		Result struct {
			Value any `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	b.call(t, b.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &res)
	if res.ExceptionDetails != nil {
		t.Fatalf("evaluating %q: %s", expr, res.ExceptionDetails.Text)
	}
	return fmt.Sprint(res.Result.Value)
}

// screenshot captures the page at a phone's width and checks it is a real
// rendering; with SCREENSHOT_DIR set it is kept there under name.
func (b *browser) screenshot(t *testing.T, name string) {
	t.Helper()
	var shot struct {
		Data string `json:"data"`
	}
	b.call(t, b.session, "Page.captureScreenshot", map[string]any{"format": "png"}, &shot)
	raw, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("%s is not a PNG: %v", name, err)
	}
	if w := img.Bounds().Dx(); w != 390 || len(raw) < 5_000 {
		t.Errorf("%s: %d px wide, %d bytes; want a 390 px wide rendering", name, w, len(raw))
	}
	if dir := os.Getenv("SCREENSHOT_DIR"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, name), raw, 0o644); err != nil {
			t.Error(err)
		}
	}
}
