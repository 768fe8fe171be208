package httpx_test

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/httpx"
)

func gzipped(t *testing.T, s string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func deflated(t *testing.T, s string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zlib.NewWriter(&buf)
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestDecodeRefusesEncodedBodies: a compressed body is 415 and never
// reaches the handler inflated, whatever the coding and however the header
// is spelled or repeated; identity is a plain body.
func TestDecodeRefusesEncodedBodies(t *testing.T) {
	t.Parallel()
	const js = `{"name":"Ada","amount":5}`
	tests := []struct {
		name       string
		encodings  []string // one Content-Encoding header each
		body       []byte
		wantStatus int
	}{
		{"gzip", []string{"gzip"}, gzipped(t, js), 415},
		{"gzip in capitals", []string{"GZIP"}, gzipped(t, js), 415},
		{"deflate", []string{"deflate"}, deflated(t, js), 415},
		{"br", []string{"br"}, []byte(js), 415},
		{"unknown coding", []string{"x-custom"}, []byte(js), 415},
		{"identity then gzip in a list", []string{"identity, gzip"}, gzipped(t, js), 415},
		{"identity header then gzip header", []string{"identity", "gzip"}, gzipped(t, js), 415},
		{"gzip header then identity header", []string{"gzip", "identity"}, gzipped(t, js), 415},
		{"identity", []string{"identity"}, []byte(js), 200},
		{"identity, Identity", []string{"identity, Identity"}, []byte(js), 200},
		{"no header", nil, []byte(js), 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			app := newDecodeApp[decodeTarget](t)
			req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/json")
			for _, e := range tt.encodings {
				req.Header.Add("Content-Encoding", e)
			}
			resp, body := do(t, app, req)
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status = %d, want %d (body %s)", resp.StatusCode, tt.wantStatus, body)
			}
			if tt.wantStatus == 200 {
				if !strings.Contains(string(body), `"Ada"`) {
					t.Errorf("body %s, want the decoded object", body)
				}
				return
			}
			env := decodeEnvelope(t, body)
			if env.Error.Code != apierr.CodeBadRequest || env.Error.RequestID == "" {
				t.Errorf("error %+v, want code bad_request with a request id", env.Error)
			}
		})
	}
}

// TestRefuseEncodedForms: fasthttp's multipart reader gunzips a gzip form
// with no cap on the inflated size, and FormValue falls through to it;
// RefuseEncoded stops such a post before the handler reads any field.
func TestRefuseEncodedForms(t *testing.T) {
	t.Parallel()
	const form = "--B\r\nContent-Disposition: form-data; name=\"phone\"\r\n\r\n+15555550100\r\n--B--\r\n"
	tests := []struct {
		name       string
		encoding   string
		body       []byte
		wantStatus int
	}{
		{"gzip multipart", "gzip", gzipped(t, form), 415},
		{"plain multipart", "", []byte(form), 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			app := newApp(t, nil)
			app.Post("/", httpx.RefuseEncoded, func(c *fiber.Ctx) error {
				return c.SendString(c.FormValue("phone"))
			})
			req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(tt.body))
			req.Header.Set("Content-Type", "multipart/form-data; boundary=B")
			if tt.encoding != "" {
				req.Header.Set("Content-Encoding", tt.encoding)
			}
			resp, body := do(t, app, req)
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status = %d, want %d (body %s)", resp.StatusCode, tt.wantStatus, body)
			}
			if tt.wantStatus == 200 && string(body) != "+15555550100" {
				t.Errorf("body %q, want the phone field", body)
			}
		})
	}
}
