package proxy_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/gateway/internal/proxy"
	"github.com/paylane/paylane/libs/httpx"
)

// serve runs a on a loopback port until the test ends.
func serve(t *testing.T, a *fiber.App) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = a.Listener(ln) }()
	t.Cleanup(func() { _ = a.Shutdown() })
	return "http://" + ln.Addr().String()
}

// TestStreamPassesEventsOnAsTheyCome: an event stream reaches the client
// event by event while the upstream keeps it open (the second event is
// written only once the client has read the first), with the request
// rewritten as Forward rewrites it.
func TestStreamPassesEventsOnAsTheyCome(t *testing.T) {
	t.Parallel()
	read := make(chan struct{})
	seen := make(chan http.Header, 1)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- r.Header.Clone()
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("X-Request-Id", "upstream-would-not-decide-this")
		w.WriteHeader(http.StatusOK)
		fmt.Fprint(w, "data: one\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-read:
		case <-r.Context().Done():
			return
		}
		fmt.Fprint(w, "data: two\n\n")
	}))
	t.Cleanup(up.Close)
	fw := proxy.NewForwarder(proxy.Options{})
	a := httpx.NewApp(nil)
	a.Use(func(c *fiber.Ctx) error {
		c.Set("X-Request-Id", "01JD3X0Q4Z8W2E5R7T9Y1V3K5N")
		return fw.Stream(c, proxy.Request{Upstream: up.URL, Authorization: "Bearer internal.jwt", Proto: "https", Host: "api.example"})
	})
	base := serve(t, a)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/v1/gateway/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer pl_1|secret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" ||
		resp.Header.Get("X-Request-Id") != "01JD3X0Q4Z8W2E5R7T9Y1V3K5N" {
		t.Fatalf("answer %d %v", resp.StatusCode, resp.Header)
	}
	h := <-seen
	if h.Get("Authorization") != "Bearer internal.jwt" || h.Get("X-Forwarded-Proto") != "https" || h.Get("X-Forwarded-Host") != "api.example" {
		t.Errorf("upstream saw %v", h)
	}
	lines := bufio.NewReader(resp.Body)
	if line, err := lines.ReadString('\n'); err != nil || line != "data: one\n" {
		t.Fatalf("first event %q, %v", line, err)
	}
	close(read)
	rest := ""
	for {
		line, err := lines.ReadString('\n')
		rest += line
		if err != nil {
			break
		}
	}
	if !strings.Contains(rest, "data: two\n") {
		t.Fatalf("rest of the stream %q", rest)
	}
}

// TestStreamPassesOtherAnswersWhole: an answer that is not a stream
// arrives whole with its status; an unreachable upstream is 503.
func TestStreamPassesOtherAnswersWhole(t *testing.T) {
	t.Parallel()
	up := upstream(t)
	fw := proxy.NewForwarder(proxy.Options{})
	a := httpx.NewApp(nil)
	a.Post("/ok", func(c *fiber.Ctx) error { return fw.Stream(c, proxy.Request{Upstream: up.URL}) })
	a.Post("/down", func(c *fiber.Ctx) error { return fw.Stream(c, proxy.Request{Upstream: "http://127.0.0.1:1"}) })
	base := serve(t, a)

	req, _ := http.NewRequest(http.MethodPost, base+"/ok", strings.NewReader(`{"jsonrpc":"2.0"}`))
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got echo
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || resp.StatusCode != http.StatusTeapot || got.Method != http.MethodPost {
		t.Fatalf("answer %d %+v %v", resp.StatusCode, got, err)
	}
	resp, err = http.Post(base+"/down", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("unreachable upstream = %d, want 503", resp.StatusCode)
	}
}
