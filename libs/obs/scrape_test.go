package obs_test

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/paylane/paylane/libs/obs"
)

// TestMetricsScrapeAfterMixedTraffic drives requests of several methods over
// kept-alive connections, as real clients do, then scrapes /metrics and
// parses it as Prometheus would. Fiber reuses a connection's request buffer,
// so a label taken from it without a copy changes under the registry.
func TestMetricsScrapeAfterMixedTraffic(t *testing.T) {
	t.Parallel()
	reg := obs.NewRegistry()
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Use(obs.HTTPMetrics(reg, "contacts-svc"))
	ok := func(c *fiber.Ctx) error { return c.SendString("ok") }
	app.Get("/api/v1/contacts", ok)
	app.Post("/api/v1/contacts", ok)
	app.Patch("/api/v1/contacts/:contact", ok)
	app.Put("/api/v1/contacts/:contact", ok)
	app.Delete("/api/v1/contacts/:contact", ok)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = app.Listener(ln) }()
	t.Cleanup(func() { _ = app.Shutdown() })

	base := "http://" + ln.Addr().String()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2}}
	requests := []struct{ method, path string }{
		{"GET", "/api/v1/contacts"},
		{"POST", "/api/v1/contacts"},
		{"PATCH", "/api/v1/contacts/01HZX3K5Q8V9W2Y4Z6A7B8C9DE"},
		{"PUT", "/api/v1/contacts/01HZX3K5Q8V9W2Y4Z6A7B8C9DE"},
		{"DELETE", "/api/v1/contacts/01HZX3K5Q8V9W2Y4Z6A7B8C9DE"},
		{"GET", "/nowhere"},
		{"OPTIONS", "/api/v1/contacts"},
	}
	for range 20 {
		for _, r := range requests {
			req, err := http.NewRequest(r.method, base+r.path, bytes.NewReader([]byte("{}")))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}

	srv := httptest.NewServer(obs.Internal{Registry: reg}.Handler())
	t.Cleanup(srv.Close)
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/metrics = %d, want 200:\n%s", resp.StatusCode, body)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	fam := families["http_requests_total"]
	if fam == nil {
		t.Fatal("/metrics lacks http_requests_total")
	}
	counts := map[string]float64{}
	for _, m := range fam.GetMetric() {
		var method string
		for _, l := range m.GetLabel() {
			if l.GetName() == "method" {
				method = l.GetValue()
			}
		}
		counts[method] += m.GetCounter().GetValue()
	}
	want := map[string]float64{"GET": 40, "POST": 20, "PATCH": 20, "PUT": 20, "DELETE": 20, "OPTIONS": 20}
	for method, n := range want {
		if counts[method] != n {
			t.Errorf("requests with method %s = %v, want %v (all: %v)", method, counts[method], n, counts)
		}
	}
	if len(counts) != len(want) {
		t.Errorf("method labels = %v, want exactly %v", counts, want)
	}
}
