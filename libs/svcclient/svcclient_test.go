package svcclient_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/reqid"
	"github.com/paylane/paylane/libs/svcclient"
	"github.com/paylane/paylane/libs/testkit"
)

// seen is what the server received of a request.
type seen struct {
	Method, Path, Query, Auth, RequestID, IdemKey, ContentType, Body string
}

func server(t *testing.T, status int, body string) (*httptest.Server, func() []seen) {
	t.Helper()
	var mu sync.Mutex
	var got []seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, seen{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Authorization"), r.Header.Get(reqid.Header),
			r.Header.Get("Idempotency-Key"), r.Header.Get("Content-Type"), string(b)})
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set(reqid.Header, "01JANSWER0000000000000000")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []seen {
		mu.Lock()
		defer mu.Unlock()
		return append([]seen(nil), got...)
	}
}

func TestDataBuildsTheRequestAndDecodesData(t *testing.T) {
	t.Parallel()
	srv, got := server(t, http.StatusCreated, `{"data":{"id":"C1","n":2}}`)
	c := svcclient.New(svcclient.Config{Service: "contacts-svc", BaseURL: srv.URL + "/", Breaker: true})
	ctx := reqid.With(context.Background(), "01JREQUEST000000000000000")
	var out struct {
		ID string `json:"id"`
		N  int    `json:"n"`
	}
	err := c.Data(ctx, svcclient.Request{Method: http.MethodPost, Path: "/internal/v1/x?y=1", Auth: "tok",
		IdempotencyKey: "k1", Body: map[string]int{"a": 1}}, &out)
	if err != nil || out.ID != "C1" || out.N != 2 {
		t.Fatalf("Data = %+v, %v", out, err)
	}
	want := []seen{{Method: "POST", Path: "/internal/v1/x", Query: "y=1", Auth: "Bearer tok", RequestID: "01JREQUEST000000000000000",
		IdemKey: "k1", ContentType: "application/json", Body: `{"a":1}`}}
	if diff := cmp.Diff(want, got()); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
	// A credential given with its scheme is sent as it is; no body, no
	// Content-Type.
	if err := c.JSON(ctx, svcclient.Request{Method: http.MethodGet, Path: "/r", Auth: "Bearer abc"}, nil); err != nil {
		t.Fatal(err)
	}
	if last := got()[1]; last.Auth != "Bearer abc" || last.ContentType != "" || last.Body != "" {
		t.Errorf("second request %+v", last)
	}
}

func TestErrorAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body    string
		status        int
		want          svcclient.Error
		notFound      bool
		fields        map[string][]string
		notDataAnswer bool
	}{
		{name: "not found", status: 404, body: `{"error":{"code":"resource_not_found","message":"No contact.","request_id":"01JENV"}}`,
			want: svcclient.Error{Service: "s", Status: 404, Code: "resource_not_found", Message: "No contact.", RequestID: "01JENV"}, notFound: true},
		{name: "404 of an unknown route is not ErrNotFound", status: 404, body: `{"error":{"code":"route_not_found","message":"No route."}}`,
			want: svcclient.Error{Service: "s", Status: 404, Code: "route_not_found", Message: "No route.", RequestID: "01JANSWER0000000000000000"}},
		{name: "validation", status: 422, body: `{"error":{"code":"validation_failed","message":"Invalid.","details":{"phone":["Taken."]}}}`,
			want: svcclient.Error{Service: "s", Status: 422, Code: "validation_failed", Message: "Invalid.", RequestID: "01JANSWER0000000000000000",
				Details: []byte(`{"phone":["Taken."]}`)}, fields: map[string][]string{"phone": {"Taken."}}},
		{name: "not an envelope", status: 502, body: `<html>bad gateway</html>`,
			want: svcclient.Error{Service: "s", Status: 502, RequestID: "01JANSWER0000000000000000"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := server(t, tt.status, tt.body)
			c := svcclient.New(svcclient.Config{Service: "s", BaseURL: srv.URL})
			err := c.Data(context.Background(), svcclient.Request{Method: http.MethodGet, Path: "/x"}, new(any))
			var e *svcclient.Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want *Error", err)
			}
			if diff := cmp.Diff(tt.want, *e); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if got := svcclient.StatusOf(err); got != tt.status {
				t.Errorf("StatusOf = %d", got)
			}
			if errors.Is(err, svcclient.ErrNotFound) != tt.notFound {
				t.Errorf("errors.Is(ErrNotFound) = %v", !tt.notFound)
			}
			if diff := cmp.Diff(tt.fields, e.Fields()); diff != "" {
				t.Errorf("Fields (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAnswerWithoutDataIsAnError(t *testing.T) {
	t.Parallel()
	srv, _ := server(t, http.StatusOK, `{"status":"ok"}`)
	c := svcclient.New(svcclient.Config{Service: "s", BaseURL: srv.URL})
	err := c.Data(context.Background(), svcclient.Request{Method: http.MethodGet, Path: "/x?phone=%2B14155550123"}, new(any))
	if err == nil || svcclient.StatusOf(err) != 0 {
		t.Fatalf("err = %v, want a decoding error", err)
	}
	if got := err.Error(); got != "s: GET /x: answer is not {data}" {
		t.Errorf("error %q: the query (which may carry a phone) must stay out of it", got)
	}
}

func TestBreakerIsPerTenantAndCountsOnlyFailures(t *testing.T) {
	t.Parallel()
	srv, calls := testkit.TenantServer(t, map[string]int{"sick": 503, "refused": 422}, `{"data":{}}`)
	c := svcclient.New(svcclient.Config{Service: "s", BaseURL: srv.URL, Breaker: true})
	call := func(tenant string) error {
		return c.Data(context.Background(), svcclient.Request{Method: http.MethodGet, Path: "/x", Auth: testkit.TenantToken(tenant)}, new(any))
	}
	for range 5 {
		if st := svcclient.StatusOf(call("sick")); st != 503 {
			t.Fatalf("sick tenant's call = %d, want 503 passed through", st)
		}
		if st := svcclient.StatusOf(call("refused")); st != 422 {
			t.Fatalf("refused tenant's call = %d", st)
		}
	}
	err := call("sick")
	if !errors.Is(err, svcclient.ErrUnavailable) || svcclient.StatusOf(err) != 0 {
		t.Fatalf("sixth call of the failing tenant = %v, want ErrUnavailable without calling", err)
	}
	if calls("sick") != 5 {
		t.Errorf("failing tenant reached the server %d times, want 5", calls("sick"))
	}
	if st := svcclient.StatusOf(call("refused")); st != 422 {
		t.Errorf("4xx tenant after five 422s = %d (%v), want 422: a 4xx never counts", st, call("refused"))
	}
	if err := call("healthy"); err != nil {
		t.Errorf("another tenant = %v", err)
	}
}

func TestTimeout(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	c := svcclient.New(svcclient.Config{Service: "s", BaseURL: srv.URL, Timeout: time.Hour})
	err := c.Data(context.Background(), svcclient.Request{Method: http.MethodGet, Path: "/x", Timeout: 50 * time.Millisecond}, new(any))
	if !errors.Is(err, context.DeadlineExceeded) || svcclient.StatusOf(err) != 0 {
		t.Fatalf("err = %v, want the deadline", err)
	}
}
