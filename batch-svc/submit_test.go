package batchsvc_test

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paylane/paylane/batch-svc/internal/testenv"
	"github.com/paylane/paylane/libs/authz"
)

const (
	tenantA = "01HZX3K5Q8V9W2Y4Z6A7B8C9DA"
	tenantB = "01HZX3K5Q8V9W2Y4Z6A7B8C9DB"
)

// items renders n contact items as a JSON array.
func items(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`{"external_id":"x-%d","first_name":"N%d","phone":"+1415555%04d"}`, i, i, i)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func TestSubmitValidatesTheEnvelope(t *testing.T) {
	t.Parallel()
	svc := testenv.Start(t, nil)
	tok := svc.Token(t, tenantA, authz.Limits{BatchSubmissionsPerMinute: 1000, BatchesInFlight: 1000},
		"api:create-contact", "api:create-receivable", "api:view-any-contact")
	for _, tt := range []struct {
		name, path, body string
		status           int
		code, field      string
	}{
		{"no items", "/api/v1/contacts/batch", `{}`, 422, "validation_failed", "items"},
		{"null items", "/api/v1/contacts/batch", `{"items":null}`, 422, "validation_failed", "items"},
		{"zero items", "/api/v1/contacts/batch", `{"items":[]}`, 422, "validation_failed", "items"},
		{"too many contacts", "/api/v1/contacts/batch", `{"items":` + items(10001) + `}`, 422, "validation_failed", "items"},
		{"items not an array", "/api/v1/contacts/batch", `{"items":{"a":1}}`, 422, "validation_failed", "items"},
		{"item not an object", "/api/v1/contacts/batch", `{"items":[{"phone":"+14155550100"},"x"]}`, 422, "validation_failed", "items.1"},
		{"campaign on contacts", "/api/v1/contacts/batch", `{"items":[{}],"options":{"campaign_id":"01HZX3K5Q8V9W2Y4Z6A7B8C9DC"}}`, 422, "validation_failed", "options.campaign_id"},
		{"auto assign on contacts", "/api/v1/contacts/batch", `{"items":[{}],"options":{"auto_assign_campaign":false}}`, 422, "validation_failed", "options.auto_assign_campaign"},
		{"unknown option", "/api/v1/contacts/batch", `{"items":[{}],"options":{"dry_run":true}}`, 422, "validation_failed", "options.dry_run"},
		{"bad on_duplicate", "/api/v1/contacts/batch", `{"items":[{}],"options":{"on_duplicate":"merge"}}`, 422, "validation_failed", "options.on_duplicate"},
		{"option of the wrong type", "/api/v1/contacts/batch", `{"items":[{}],"options":{"suppress_webhooks":"no"}}`, 422, "validation_failed", "options.suppress_webhooks"},
		{"unknown field", "/api/v1/contacts/batch", `{"items":[{}],"mode":"x"}`, 422, "validation_failed", "mode"},
		{"bad option and no items: the items", "/api/v1/contacts/batch", `{"items":[],"options":{"dry_run":true}}`, 422, "validation_failed", "items"},
		{"bad option and no items: the option", "/api/v1/contacts/batch", `{"items":[],"options":{"dry_run":true}}`, 422, "validation_failed", "options.dry_run"},
		{"not JSON", "/api/v1/contacts/batch", `{"items":`, 400, "bad_request", ""},
		{"option in other case", "/api/v1/contacts/batch", `{"items":[{}],"options":{"ON_DUPLICATE":"skip"}}`, 422, "validation_failed", "options.ON_DUPLICATE"},
		{"option twice", "/api/v1/contacts/batch", `{"items":[{}],"options":{"on_duplicate":"skip","on_duplicate":"fail"}}`, 422, "validation_failed", "options.on_duplicate"},
		{"option holding NUL", "/api/v1/contacts/batch", `{"items":[{}],"options":{"on_duplicate":"skip\u0000"}}`, 422, "validation_failed", "options.on_duplicate"},
		{"items in other case", "/api/v1/contacts/batch", `{"ITEMS":[{}]}`, 422, "validation_failed", "ITEMS"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := svc.Do(t, http.MethodPost, tt.path, tok, tt.body)
			if r.Status != tt.status || r.Code() != tt.code {
				t.Fatalf("status %d %s, want %d %s: %s", r.Status, r.Code(), tt.status, tt.code, r.Body)
			}
			if tt.field != "" && !strings.Contains(string(r.Body), `"`+tt.field+`"`) {
				t.Errorf("details do not name %s: %s", tt.field, r.Body)
			}
		})
	}
	if total := batchTotal(t, svc, tok); total != 0 {
		t.Errorf("refused submissions created %d batches", total)
	}
}

func TestSubmitAccepts(t *testing.T) {
	t.Parallel()
	svc := testenv.Start(t, nil)
	tok := svc.Token(t, tenantA, authz.Limits{}, "api:create-contact", "api:view-any-contact")
	started := time.Now()
	r := svc.Do(t, http.MethodPost, "/api/v1/contacts/batch", tok,
		`{"items":`+items(10000)+`,"options":{"on_duplicate":"skip","suppress_activity_log":false}}`,
		"X-Forwarded-Proto", "https", "X-Forwarded-Host", "api.example.test")
	t.Logf("submitting 10,000 contacts took %v", time.Since(started)) // informative, not asserted
	if r.Status != http.StatusAccepted {
		t.Fatalf("submit = %d %s", r.Status, r.Body)
	}
	var env struct{ Data testenv.Header }
	r.JSON(t, &env)
	h := env.Data
	if h.Type != "contacts" || h.Status != "queued" && h.Status != "processing" || h.TotalItems != 10000 || h.ID == "" {
		t.Errorf("header = %+v", h)
	}
	want := map[string]any{"on_duplicate": "skip", "suppress_webhooks": true, "suppress_activity_log": false}
	if fmt.Sprint(h.Options) != fmt.Sprint(want) {
		t.Errorf("options = %v, want %v", h.Options, want)
	}
	if links := string(h.Links); !strings.Contains(links, `"self":"https://api.example.test/api/v1/batches/`+h.ID+`"`) ||
		!strings.Contains(links, `/api/v1/batches/`+h.ID+`/errors"`) {
		t.Errorf("links = %s", links)
	}
	done := svc.WaitFor(t, tok, h.ID, testenv.Header.Final)
	if done.Status != "completed" || done.ProcessedItems != 10000 || done.SucceededItems != 10000 {
		t.Errorf("finished header = %+v", done)
	}
}

func TestSubmitNeedsTheCreateAbility(t *testing.T) {
	t.Parallel()
	svc := testenv.Start(t, nil)
	for path, ability := range map[string]string{
		"/api/v1/contacts/batch": "api:create-receivable", "/api/v1/receivables/batch": "api:create-contact",
		"/api/v1/payables/batch": "api:create-receivable",
	} {
		tok := svc.Token(t, tenantA, authz.Limits{}, ability, "api:view-any-contact")
		if r := svc.Do(t, http.MethodPost, path, tok, `{"items":[{}]}`); r.Status != http.StatusForbidden || r.Code() != "forbidden" {
			t.Errorf("POST %s with %s = %d %s", path, ability, r.Status, r.Body)
		}
	}
}

func TestSubmitLimits(t *testing.T) {
	t.Parallel()
	t.Run("per minute", func(t *testing.T) {
		t.Parallel()
		svc := testenv.Start(t, nil)
		tok := svc.Token(t, tenantA, authz.Limits{BatchSubmissionsPerMinute: 2, BatchesInFlight: 100}, "api:create-contact")
		other := svc.Token(t, tenantA, authz.Limits{BatchSubmissionsPerMinute: 2, BatchesInFlight: 100}, "api:create-contact")
		for i := range 2 {
			if r := svc.Do(t, http.MethodPost, "/api/v1/contacts/batch", tok, `{"items":[{"phone":"+14155550100"}]}`); r.Status != http.StatusAccepted {
				t.Fatalf("submission %d = %d %s", i, r.Status, r.Body)
			}
		}
		// Another token of the tenant shares the tenant's count.
		r := svc.Do(t, http.MethodPost, "/api/v1/contacts/batch", other, `{"items":[{"phone":"+14155550100"}]}`)
		if r.Status != http.StatusTooManyRequests || r.Code() != "rate_limited" {
			t.Fatalf("third submission = %d %s", r.Status, r.Body)
		}
		if ra, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || ra < 1 || ra > 60 {
			t.Errorf("Retry-After = %q", r.Header.Get("Retry-After"))
		}
		if r.Header.Get("X-RateLimit-Limit") != "2" || r.Header.Get("X-RateLimit-Remaining") != "0" {
			t.Errorf("rate-limit headers = %q %q", r.Header.Get("X-RateLimit-Limit"), r.Header.Get("X-RateLimit-Remaining"))
		}
		otherTenant := svc.Token(t, tenantB, authz.Limits{BatchSubmissionsPerMinute: 2}, "api:create-contact")
		if r := svc.Do(t, http.MethodPost, "/api/v1/contacts/batch", otherTenant, `{"items":[{"phone":"+14155550100"}]}`); r.Status != http.StatusAccepted {
			t.Errorf("another tenant's submission = %d %s", r.Status, r.Body)
		}
	})
	t.Run("in flight", func(t *testing.T) {
		t.Parallel()
		// contacts-svc answering 503 keeps the batches processing (retried, not failed).
		svc := testenv.Start(t, nil)
		svc.Contacts.SetStatus(http.StatusServiceUnavailable)
		tok := svc.Token(t, tenantA, authz.Limits{BatchesInFlight: 1}, "api:create-contact", "api:view-any-contact")
		r := svc.Do(t, http.MethodPost, "/api/v1/contacts/batch", tok, `{"items":[{"phone":"+14155550100"}]}`)
		if r.Status != http.StatusAccepted {
			t.Fatalf("first submission = %d %s", r.Status, r.Body)
		}
		r = svc.Do(t, http.MethodPost, "/api/v1/contacts/batch", tok, `{"items":[{"phone":"+14155550100"}]}`)
		if r.Status != http.StatusTooManyRequests || r.Code() != "batch_concurrency_limit_reached" || r.Header.Get("Retry-After") == "" {
			t.Fatalf("second submission = %d %s (Retry-After %q)", r.Status, r.Body, r.Header.Get("Retry-After"))
		}
		var env struct{ Data testenv.Header }
		r.JSON(t, &env)
		svc.Contacts.SetStatus(0)
		var list struct{ Data []testenv.Header }
		svc.Do(t, http.MethodGet, "/api/v1/batches", tok, nil).JSON(t, &list)
		if len(list.Data) != 1 {
			t.Fatalf("batches = %+v", list.Data)
		}
		if h := svc.WaitFor(t, tok, list.Data[0].ID, testenv.Header.Final); h.Status != "completed" {
			t.Errorf("after contacts-svc recovered: %+v", h)
		}
		if r := svc.Do(t, http.MethodPost, "/api/v1/contacts/batch", tok, `{"items":[{"phone":"+14155550100"}]}`); r.Status != http.StatusAccepted {
			t.Errorf("submission after the batch finished = %d %s", r.Status, r.Body)
		}
	})
}

func TestSubmitIdempotencyKey(t *testing.T) {
	t.Parallel()
	svc := testenv.Start(t, nil)
	tok := svc.Token(t, tenantA, authz.Limits{}, "api:create-contact", "api:view-any-contact")
	body := `{"items":[{"phone":"+14155550100"}]}`
	first := svc.Do(t, http.MethodPost, "/api/v1/contacts/batch", tok, body, "Idempotency-Key", "k-1")
	again := svc.Do(t, http.MethodPost, "/api/v1/contacts/batch", tok, body, "Idempotency-Key", "k-1")
	if first.Status != http.StatusAccepted || again.Status != http.StatusAccepted || string(first.Body) != string(again.Body) ||
		again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("first %d %s; replay %d %s %v", first.Status, first.Body, again.Status, again.Body, again.Header)
	}
	if r := svc.Do(t, http.MethodPost, "/api/v1/contacts/batch", tok, `{"items":[{"phone":"+14155550101"}]}`,
		"Idempotency-Key", "k-1"); r.Status != http.StatusConflict || r.Code() != "idempotency_conflict" {
		t.Errorf("other body, same key = %d %s", r.Status, r.Body)
	}
	if total := batchTotal(t, svc, tok); total != 1 {
		t.Errorf("batches = %d, want 1", total)
	}
}

func TestConcurrentSubmissionsRespectTheInFlightLimit(t *testing.T) {
	t.Parallel()
	// Two replicas on one database: the limit holds across them.
	a := testenv.Start(t, nil)
	b := testenv.StartOn(t, a, nil)
	a.Contacts.SetStatus(http.StatusServiceUnavailable) // keeps accepted batches in flight
	b.Contacts.SetStatus(http.StatusServiceUnavailable)
	tok := a.Token(t, tenantA, authz.Limits{BatchesInFlight: 2, BatchSubmissionsPerMinute: 100}, "api:create-contact")
	statuses := make(chan int, 10)
	var wg sync.WaitGroup
	for i := range 10 {
		svc := a
		if i%2 == 1 {
			svc = b
		}
		wg.Go(func() {
			statuses <- svc.Do(t, http.MethodPost, "/api/v1/contacts/batch", tok, `{"items":[{"phone":"+14155550100"}]}`).Status
		})
	}
	wg.Wait()
	close(statuses)
	count := map[int]int{}
	for s := range statuses {
		count[s]++
	}
	if count[http.StatusAccepted] != 2 || count[http.StatusTooManyRequests] != 8 {
		t.Errorf("statuses = %v, want 2 × 202 and 8 × 429", count)
	}
}

// batchTotal is meta.total of the tenant's batch list as tok sees it.
func batchTotal(t *testing.T, svc testenv.Service, tok string) int {
	t.Helper()
	var list struct{ Meta struct{ Total int } }
	svc.Do(t, http.MethodGet, "/api/v1/batches", tok, nil).JSON(t, &list)
	return list.Meta.Total
}
