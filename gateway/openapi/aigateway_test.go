package openapi_test

import (
	"net/http"
	"testing"
)

func TestServedDocumentListsTheAIGatewayRoutes(t *testing.T) {
	t.Parallel()
	doc := loadDoc(t)
	for _, r := range []struct{ method, path string }{
		{http.MethodPost, "/gateway/resolve-contact"},
		{http.MethodPost, "/gateway/contacts"},
		{http.MethodPost, "/gateway/transactions/prepare"},
		{http.MethodPost, "/gateway/transactions/{transaction}/confirm"},
		{http.MethodGet, "/gateway/transactions/{reference}/status"},
		{http.MethodPost, "/gateway/mcp"},
		{http.MethodGet, "/gateway/mcp"},
		{http.MethodDelete, "/gateway/mcp"},
	} {
		item := doc.Paths.Find(r.path)
		if item == nil || item.GetOperation(r.method) == nil {
			t.Errorf("%s %s is not in the served document", r.method, r.path)
			continue
		}
		op := item.GetOperation(r.method)
		if op.Responses.Value("403") == nil || op.Responses.Value("503") == nil {
			t.Errorf("%s %s: 403 (flag off) and 503 must be documented", r.method, r.path)
		}
	}
}
