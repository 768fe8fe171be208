package obs

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

func TestWantsExport(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		env     map[string]string
		want    bool
		wantErr bool
	}{
		{name: "nothing set: off", env: nil, want: false},
		{name: "endpoint set", env: map[string]string{envEndpoint: "http://collector:4318"}, want: true},
		{name: "traces endpoint set", env: map[string]string{envTracesEndpoint: "http://collector:4318/v1/traces"}, want: true},
		{name: "exporter otlp", env: map[string]string{envTracesExporter: "otlp"}, want: true},
		{name: "exporter none wins over an endpoint", env: map[string]string{envTracesExporter: "none", envEndpoint: "http://c:4318"}, want: false},
		{name: "sdk disabled", env: map[string]string{envSDKDisabled: "true", envTracesExporter: "otlp"}, want: false},
		{name: "http/protobuf", env: map[string]string{envTracesExporter: "otlp", envProtocol: "http/protobuf"}, want: true},
		{name: "grpc refused", env: map[string]string{envTracesExporter: "otlp", envProtocol: "grpc"}, wantErr: true},
		{name: "traces protocol wins", env: map[string]string{envEndpoint: "http://c:4318", envProtocol: "grpc", envTracesProtocol: "http/protobuf"}, want: true},
		{name: "unknown exporter refused", env: map[string]string{envTracesExporter: "zipkin"}, wantErr: true},
		{name: "protocol alone does not export", env: map[string]string{envProtocol: "grpc"}, want: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := wantsExport(func(k string) string { return tc.env[k] })
			if (err != nil) != tc.wantErr {
				t.Fatalf("error = %v, want error %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("export = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestTracingExportsOverOTLPWhenAsked points the standard endpoint variable
// at a collector stand-in: the spans of a service arrive there as OTLP over
// HTTP, and a service configured with nothing sends nothing.
func TestTracingExportsOverOTLPWhenAsked(t *testing.T) {
	var posts atomic.Int32
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Method == http.MethodPost && r.URL.Path == "/v1/traces" && len(body) > 0 {
			posts.Add(1)
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer collector.Close()
	t.Setenv(envEndpoint, collector.URL)
	t.Setenv(envTracesExporter, "")

	ctx := context.Background()
	tr, err := NewTracing(ctx, "contacts-svc")
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Exporting() {
		t.Fatal("an OTLP endpoint is set, yet tracing does not export")
	}
	_, span := tr.Tracer().Start(ctx, "GET /api/v1/contacts")
	span.End()
	if err := tr.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if posts.Load() == 0 {
		t.Error("the collector received no spans")
	}

	t.Setenv(envEndpoint, "")
	quiet, err := NewTracing(ctx, "contacts-svc")
	if err != nil {
		t.Fatal(err)
	}
	if quiet.Exporting() {
		t.Error("tracing exports with no OTEL_* variable set")
	}
	before := posts.Load()
	_, span = quiet.Tracer().Start(ctx, "x")
	if !span.SpanContext().IsValid() {
		t.Error("a span without an exporter has no trace id")
	}
	span.End()
	_ = quiet.Shutdown(ctx)
	if posts.Load() != before {
		t.Error("spans were sent with export off")
	}
}
