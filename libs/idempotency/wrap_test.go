package idempotency_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/tenancy"
)

func TestReplayIsByteForByte(t *testing.T) {
	t.Parallel()
	eachMode(t, func(t *testing.T, e *env) {
		first := e.post(t, tenantA, "key-1", `{"name":"a"}`)
		if first.status != 201 {
			t.Fatalf("first = %d %s", first.status, first.body)
		}
		second := e.post(t, tenantA, "key-1", `{"name":"a"}`)
		if second.status != 201 {
			t.Fatalf("replay = %d %s", second.status, second.body)
		}
		if diff := cmp.Diff(string(first.body), string(second.body)); diff != "" {
			t.Errorf("replayed body (-first +replay):\n%s", diff)
		}
		if got := second.header.Get(idempotency.HeaderReplayed); got != "true" {
			t.Errorf("%s = %q, want true", idempotency.HeaderReplayed, got)
		}
		firstID := first.header.Get("X-Request-Id")
		if got := second.header.Get(idempotency.HeaderOriginalRequestID); got != firstID {
			t.Errorf("%s = %q, want the first request's id %q", idempotency.HeaderOriginalRequestID, got, firstID)
		}
		if second.header.Get("X-Request-Id") == firstID {
			t.Error("the replay reuses the first request id; it needs its own")
		}
		if first.header.Get(idempotency.HeaderReplayed) != "" {
			t.Error("the first response is marked replayed")
		}
		if got := second.header.Get("Content-Type"); got != first.header.Get("Content-Type") {
			t.Errorf("replayed Content-Type = %q, want %q", got, first.header.Get("Content-Type"))
		}
		if n := e.count(t, tenantA); n != 1 {
			t.Errorf("things = %d, want 1", n)
		}
	})
}

func TestWithoutKeyNothingIsStored(t *testing.T) {
	t.Parallel()
	eachMode(t, func(t *testing.T, e *env) {
		for range 2 {
			if r := e.post(t, tenantA, "", `{"name":"a"}`); r.status != 201 {
				t.Fatalf("status = %d %s", r.status, r.body)
			}
		}
		if n, k := e.count(t, tenantA), e.keys(t, tenantA); n != 2 || k != 0 {
			t.Errorf("things = %d, keys = %d; want 2 and 0", n, k)
		}
	})
}

func TestConflicts(t *testing.T) {
	t.Parallel()
	bothModes(t, func(t *testing.T, newEnv func(*testing.T) *env) {
		tests := []struct {
			name   string
			method string
			path   string
			body   string
		}{
			{"other body", "POST", "/things", `{"name":"b"}`},
			{"same body reformatted", "POST", "/things", `{"name": "a"}`},
			{"other path", "POST", "/other-things", `{"name":"a"}`},
			{"other method", "PUT", "/things", `{"name":"a"}`},
		}
		e := newEnv(t)
		if r := e.post(t, tenantA, "key-c", `{"name":"a"}`); r.status != 201 {
			t.Fatalf("first = %d %s", r.status, r.body)
		}
		t.Cleanup(func() { // after the parallel subtests
			if n := e.count(t, tenantA); n != 1 {
				t.Errorf("things = %d, want 1", n)
			}
		})
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				r := e.send(t, tt.method, tt.path, tenantA, "key-c", tt.body)
				if r.status != 409 || r.code() != apierr.CodeIdempotencyConflict {
					t.Errorf("= %d %s, want 409 %s", r.status, r.body, apierr.CodeIdempotencyConflict)
				}
			})
		}
	})
}

func TestClientErrorIsStoredAndTheWriteUndone(t *testing.T) {
	t.Parallel()
	eachMode(t, func(t *testing.T, e *env) {
		first := e.post(t, tenantA, "key-4xx", `{"name":"a","fail":422}`)
		if first.status != 422 || first.code() != "failed_on_purpose" {
			t.Fatalf("first = %d %s", first.status, first.body)
		}
		if !strings.Contains(string(first.body), first.header.Get("X-Request-Id")) {
			t.Errorf("error body %s lacks the request id", first.body)
		}
		if n, k := e.count(t, tenantA), e.keys(t, tenantA); n != 0 || k != 1 {
			t.Fatalf("after a 422: things = %d, keys = %d; want 0 and 1", n, k)
		}
		second := e.post(t, tenantA, "key-4xx", `{"name":"a","fail":422}`)
		if second.status != 422 || string(second.body) != string(first.body) || second.header.Get(idempotency.HeaderReplayed) != "true" {
			t.Errorf("replay = %d %s (replayed %q), want the stored 422", second.status, second.body, second.header.Get(idempotency.HeaderReplayed))
		}
		if n := e.count(t, tenantA); n != 0 {
			t.Errorf("things = %d after replaying a 422, want 0", n)
		}
	})
}

func TestServerErrorsAndRateLimitsAreNotStored(t *testing.T) {
	t.Parallel()
	bothModes(t, func(t *testing.T, newEnv func(*testing.T) *env) {
		for _, status := range []int{500, 503, 429} {
			e := newEnv(t)
			body := `{"name":"a","fail":` + strconv.Itoa(status) + `}`
			if r := e.post(t, tenantA, "key-5xx", body); r.status != status {
				t.Fatalf("first = %d %s, want %d", r.status, r.body, status)
			}
			if n, k := e.count(t, tenantA), e.keys(t, tenantA); n != 0 || k != 0 {
				t.Fatalf("after %d: things = %d, keys = %d; want nothing committed", status, n, k)
			}
			// The key is free: a retry with another body runs for real.
			r := e.post(t, tenantA, "key-5xx", `{"name":"retry"}`)
			if r.status != 201 || r.header.Get(idempotency.HeaderReplayed) != "" {
				t.Fatalf("retry after %d = %d %s", status, r.status, r.body)
			}
			if n := e.count(t, tenantA); n != 1 {
				t.Errorf("things = %d, want 1", n)
			}
		}
	})
}

func TestConcurrentSameKeyWritesOnce(t *testing.T) {
	t.Parallel()
	eachMode(t, func(t *testing.T, e *env) {
		const n = 20
		results := make([]result, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { results[i] = e.post(t, tenantA, "key-race", `{"name":"race"}`) })
		}
		wg.Wait()
		replayed := 0
		for i, r := range results {
			if r.status != 201 {
				t.Fatalf("request %d = %d %s", i, r.status, r.body)
			}
			if string(r.body) != string(results[0].body) {
				t.Errorf("request %d body %s differs from %s", i, r.body, results[0].body)
			}
			if r.header.Get(idempotency.HeaderReplayed) == "true" {
				replayed++
			}
		}
		if replayed != n-1 {
			t.Errorf("replayed = %d, want %d", replayed, n-1)
		}
		if got := e.count(t, tenantA); got != 1 {
			t.Errorf("things = %d, want exactly 1", got)
		}
	})
}

func TestKeysAreScopedToTheTenant(t *testing.T) {
	t.Parallel()
	eachMode(t, func(t *testing.T, e *env) {
		a := e.post(t, tenantA, "shared", `{"name":"a"}`)
		b := e.post(t, tenantB, "shared", `{"name":"a"}`)
		if a.status != 201 || b.status != 201 || b.header.Get(idempotency.HeaderReplayed) != "" || string(a.body) == string(b.body) {
			t.Fatalf("tenant B got A's response: %d %s / %d %s", a.status, a.body, b.status, b.body)
		}
		if e.count(t, tenantA) != 1 || e.count(t, tenantB) != 1 {
			t.Error("each tenant should have its own thing")
		}
	})
}

func TestKeyTooLong(t *testing.T) {
	t.Parallel()
	eachMode(t, func(t *testing.T, e *env) {
		tests := []struct {
			name   string
			key    string
			status int
		}{
			{"128 characters", strings.Repeat("k", 128), 201},
			{"128 multibyte characters", strings.Repeat("é", 128), 201},
			{"129 characters", strings.Repeat("k", 129), 422},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				r := e.post(t, tenantA, tt.key, `{"name":"`+tt.name+`"}`)
				if r.status != tt.status {
					t.Fatalf("= %d %s, want %d", r.status, r.body, tt.status)
				}
				if tt.status == 422 && !strings.Contains(string(r.body), `"Idempotency-Key"`) {
					t.Errorf("422 body %s does not name Idempotency-Key", r.body)
				}
			})
		}
	})
}

func TestExpiredKeyIsReplaced(t *testing.T) {
	t.Parallel()
	eachMode(t, func(t *testing.T, e *env) {
		if r := e.post(t, tenantA, "old", `{"name":"a"}`); r.status != 201 {
			t.Fatal(r.status)
		}
		e.age(t, tenantA, 25*time.Hour)
		r := e.post(t, tenantA, "old", `{"name":"other body is fine now"}`)
		if r.status != 201 || r.header.Get(idempotency.HeaderReplayed) != "" {
			t.Fatalf("after expiry = %d %s replayed=%q", r.status, r.body, r.header.Get(idempotency.HeaderReplayed))
		}
		if n := e.count(t, tenantA); n != 2 {
			t.Errorf("things = %d, want 2", n)
		}
	})
}

func TestInProgressAfterLockTimeout(t *testing.T) {
	t.Parallel()
	eachMode(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		held := make(chan struct{})
		release := make(chan struct{})
		done := make(chan error, 1)
		go func() {
			// A first request that claimed the key and is still running.
			done <- tenancy.Do(ctx, e.pool, tenantA, func(tx pgx.Tx) error {
				_, _, err := idempotency.Run(ctx, tx, idempotency.Request{
					TenantID: tenantA, Key: "slow", Method: "POST", Path: "/things", Body: []byte(`{}`), RequestID: "first",
				}, func(idempotency.Tx) (idempotency.Response, error) {
					close(held)
					<-release
					return idempotency.Response{Status: 201, Body: []byte(`{}`)}, nil
				})
				return err
			})
		}()
		<-held
		r := e.post(t, tenantA, "slow", `{}`)
		close(release)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if r.status != 409 || r.code() != apierr.CodeIdempotencyInProgress || r.header.Get("Retry-After") == "" {
			t.Fatalf("= %d %s Retry-After %q, want 409 %s with Retry-After", r.status, r.body, r.header.Get("Retry-After"), apierr.CodeIdempotencyInProgress)
		}
		// Once the first commits, the same request replays it.
		r = e.post(t, tenantA, "slow", `{}`)
		if r.status != 201 || r.header.Get(idempotency.HeaderOriginalRequestID) != "first" {
			t.Errorf("after the first committed = %d %s original %q", r.status, r.body, r.header.Get(idempotency.HeaderOriginalRequestID))
		}
	})
}

func TestCleanupDeletesOnlyExpiredKeys(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	for _, tenant := range []string{tenantA, tenantB} {
		e.post(t, tenant, "old", `{"name":"old"}`)
		e.age(t, tenant, 25*time.Hour)
		e.post(t, tenant, "new", `{"name":"new"}`)
	}
	var unscoped int
	if err := e.pool.QueryRow(ctx, "SELECT count(*) FROM idempotency_keys").Scan(&unscoped); err != nil || unscoped != 0 {
		t.Fatalf("an unscoped query sees %d keys (%v), want 0", unscoped, err)
	}
	n, err := idempotency.Cleanup(ctx, e.pool)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("Cleanup deleted %d, want 2 (one expired key per tenant)", n)
	}
	for _, tenant := range []string{tenantA, tenantB} {
		if k := e.keys(t, tenant); k != 1 {
			t.Errorf("tenant %s keeps %d keys, want 1", tenant, k)
		}
	}
}

// TestCompressedBodyIsRefusedBeforeTheKey: a body with a Content-Encoding is
// refused (415) before the key is used, so the same key then serves the
// plain request instead of replaying the refusal or conflicting with it.
func TestCompressedBodyIsRefusedBeforeTheKey(t *testing.T) {
	t.Parallel()
	eachMode(t, func(t *testing.T, e *env) {
		req := httptest.NewRequest(http.MethodPost, "/things", strings.NewReader("\x1f\x8b not really gzip"))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Content-Encoding", "gzip")
		req.Header.Set("Authorization", "Bearer "+e.tokens[tenantA])
		req.Header.Set(idempotency.HeaderKey, "key-gz")
		resp, err := e.app.Test(req, -1)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnsupportedMediaType {
			t.Fatalf("compressed body: status %d, want 415", resp.StatusCode)
		}
		if k := e.keys(t, tenantA); k != 0 {
			t.Fatalf("keys = %d after the refusal, want 0", k)
		}
		if r := e.post(t, tenantA, "key-gz", `{"name":"a"}`); r.status != 201 || r.header.Get(idempotency.HeaderReplayed) != "" {
			t.Errorf("plain request with the same key: %d replayed=%q %s", r.status, r.header.Get(idempotency.HeaderReplayed), r.body)
		}
	})
}

// A domain error the handler returns unmapped is stored as the envelope the
// error handler would send, and its write is undone.
func TestDomainErrorIsMappedAndStored(t *testing.T) {
	t.Parallel()
	eachMode(t, func(t *testing.T, e *env) {
		first := e.post(t, tenantA, "key-taken", `{"name":"a","taken":true}`)
		if first.status != 422 || first.code() != apierr.CodeValidationFailed || !strings.Contains(string(first.body), `"name"`) {
			t.Fatalf("first = %d %s, want 422 validation_failed on name", first.status, first.body)
		}
		if n, k := e.count(t, tenantA), e.keys(t, tenantA); n != 0 || k != 1 {
			t.Fatalf("things = %d, keys = %d; want 0 and 1", n, k)
		}
		second := e.post(t, tenantA, "key-taken", `{"name":"a","taken":true}`)
		if second.status != 422 || string(second.body) != string(first.body) || second.header.Get(idempotency.HeaderReplayed) != "true" {
			t.Errorf("replay = %d %s, want the stored 422", second.status, second.body)
		}
		// Without a key the same error reaches the error handler: same answer.
		plain := e.post(t, tenantA, "", `{"name":"a","taken":true}`)
		if plain.status != 422 || plain.code() != apierr.CodeValidationFailed {
			t.Errorf("without key = %d %s, want 422 validation_failed", plain.status, plain.body)
		}
	})
}

// InTx joins a request's write transaction only for its own tenant.
func TestInTxRefusesAnotherTenant(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	var joinErr error
	err := tenancy.Do(ctx, e.pool, tenantA, func(tx pgx.Tx) error {
		_, _, err := idempotency.Run(ctx, tx, idempotency.Request{
			TenantID: tenantA, Key: "join", Method: "POST", Path: "/things", Body: []byte(`{}`), RequestID: "r",
		}, func(wtx idempotency.Tx) (idempotency.Response, error) {
			if wtx.TenantID() != tenantA {
				t.Errorf("Tx.TenantID = %q, want %q", wtx.TenantID(), tenantA)
			}
			joinErr = idempotency.InTx(ctx, wtx, e.pool, tenancy.Do, tenantB, func(pgx.Tx) error {
				t.Error("fn ran in another tenant's transaction")
				return nil
			})
			return idempotency.Response{Status: 201, Body: []byte(`{}`)}, nil
		})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(joinErr, idempotency.ErrTenantMismatch) {
		t.Errorf("InTx with another tenant = %v, want ErrTenantMismatch", joinErr)
	}
}
