package openapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/paylane/paylane/gateway/openapi"
)

func TestDocumentIsValidOpenAPI31(t *testing.T) {
	t.Parallel()
	doc := loadDoc(t)
	if !doc.IsOpenAPI31OrLater() {
		t.Fatalf("openapi = %q, want 3.1.x", doc.OpenAPI)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("validating openapi.yaml: %v", err)
	}
}

func TestJSONMatchesYAML(t *testing.T) {
	t.Parallel()
	b, err := openapi.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		OpenAPI string                     `json:"openapi"`
		Servers []struct{ URL string }     `json:"servers"`
		Paths   map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("decoding json: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1") {
		t.Errorf("openapi = %q, want 3.1.x", doc.OpenAPI)
	}
	if len(doc.Servers) != 1 || doc.Servers[0].URL != "/api/v1" {
		t.Errorf("servers = %+v, want one server /api/v1", doc.Servers)
	}
	for _, p := range []string{"/healthcheck/app", "/openapi.json"} {
		if _, ok := doc.Paths[p]; !ok {
			t.Errorf("path %s is not documented", p)
		}
	}
}

// Paths are relative to the server URL: a path written with /api/v1 would be
// routed as /api/v1/api/v1/... and never match.
func TestPathsAreRelativeToServer(t *testing.T) {
	t.Parallel()
	doc := loadDoc(t)
	for p := range doc.Paths.Map() {
		if strings.HasPrefix(p, "/api/") || !strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") {
			t.Errorf("path %q: write it relative to /api/v1, starting with / and without a trailing /", p)
		}
	}
}

func TestEveryOperationHasCommonErrorResponses(t *testing.T) {
	t.Parallel()
	doc := loadDoc(t)
	for p, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.Responses.Value("429") == nil {
				t.Errorf("%s %s: no 429 response documented", method, p)
			}
			if op.Responses.Value("415") == nil { // the gateway refuses a Content-Encoding on every route
				t.Errorf("%s %s: no 415 response documented", method, p)
			}
			if op.Security != nil && len(*op.Security) == 0 {
				continue // public route: no 401
			}
			if op.Responses.Value("401") == nil {
				t.Errorf("%s %s: no 401 response documented", method, p)
			}
		}
	}
}

func TestServedNamesThePublicHost(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"":                            "/api/v1",
		"https://api.paylane.example": "https://api.paylane.example/api/v1",
		"https://localhost:8443/":     "https://localhost:8443/api/v1",
	}
	for base, want := range tests {
		t.Run(base, func(t *testing.T) {
			t.Parallel()
			plain, err := openapi.JSON()
			if err != nil {
				t.Fatal(err)
			}
			b, err := openapi.WithServer(plain, base)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Servers []struct{ URL string } `json:"servers"`
			}
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			if len(doc.Servers) != 1 || doc.Servers[0].URL != want {
				t.Errorf("servers = %+v, want [%s]", doc.Servers, want)
			}
		})
	}
}

func loadDoc(t *testing.T) *openapi3.T {
	t.Helper()
	b, err := openapi.JSON()
	if err != nil {
		t.Fatalf("merging the document: %v", err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(b)
	if err != nil {
		t.Fatalf("loading the document: %v", err)
	}
	return doc
}
