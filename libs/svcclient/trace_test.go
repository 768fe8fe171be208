package svcclient_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/libs/svcclient"
)

// TestCallsContinueTheCallersTrace: a call made under a trace carries its
// traceparent, so the callee's spans and log lines join the caller's trace;
// a call without one carries none.
func TestCallsContinueTheCallersTrace(t *testing.T) {
	t.Parallel()
	headers := make(chan string, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		headers <- r.Header.Get("traceparent")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"data":{}}`))
	}))
	t.Cleanup(srv.Close)
	c := svcclient.New(svcclient.Config{Service: "contacts-svc", BaseURL: srv.URL})
	const parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	if err := c.JSON(obs.WithTraceParent(context.Background(), parent), svcclient.Request{Method: http.MethodGet, Path: "/x"}, nil); err != nil {
		t.Fatal(err)
	}
	if got := <-headers; got != parent {
		t.Errorf("traceparent = %q, want the caller's %q", got, parent)
	}
	if err := c.JSON(context.Background(), svcclient.Request{Method: http.MethodGet, Path: "/x"}, nil); err != nil {
		t.Fatal(err)
	}
	if got := <-headers; got != "" {
		t.Errorf("a call without a trace sent traceparent %q", got)
	}
}
