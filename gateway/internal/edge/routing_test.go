package edge_test

import (
	"net/http"
	"testing"
)

func TestRouteCheck(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	tests := []struct {
		name   string
		r      req
		status int
		code   string
		allow  string
	}{
		{"unknown api path", req{path: "/api/v1/nope", token: e.token}, 404, "route_not_found", ""},
		{"unknown path, no token: route first", req{path: "/api/v1/nope"}, 404, "route_not_found", ""},
		{"outside api, no route", req{path: "/admin/v1/tenants"}, 404, "route_not_found", ""},
		{"root", req{path: "/"}, 404, "route_not_found", ""},
		{"documented, service not deployed", req{path: "/api/v1/receivables", token: e.token}, 404, "route_not_found", ""},
		{"template is one segment", req{path: "/api/v1/contacts/a/b", token: e.token}, 404, "route_not_found", ""},
		{"dot segment", req{path: "/api/v1/contacts/..", token: e.token}, 404, "route_not_found", ""},
		{"trailing slash", req{path: "/api/v1/contacts/", token: e.token}, 404, "route_not_found", ""},
		{"wrong method", req{method: http.MethodDelete, path: "/api/v1/contacts", token: e.token}, 405, "method_not_allowed", "GET, POST"},
		{"wrong method, no token", req{method: http.MethodPost, path: "/api/v1/contacts/01JD3X0Q4Z8W2E5R7T9Y1V3K5N"}, 405, "method_not_allowed", "DELETE, GET, PATCH, PUT"},
		{"literal beats template", req{method: http.MethodGet, path: "/api/v1/contacts/batch", token: e.token}, 405, "method_not_allowed", "POST"},
		{"health is GET only", req{method: http.MethodPost, path: "/api/v1/healthcheck/app"}, 405, "method_not_allowed", "GET"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := do(t, e.url, tt.r)
			wantError(t, got, tt.status, tt.code)
			if allow := got.header.Get("Allow"); allow != tt.allow {
				t.Errorf("Allow = %q, want %q", allow, tt.allow)
			}
		})
	}
}

func TestForwardsDocumentedRoute(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	body := []byte(`{"first_name":"Ada","phone":"+15555550100"}`)
	got := do(t, e.url, req{method: http.MethodPost, path: "/api/v1/contacts?x=1&y=%2F", token: e.token,
		body: body, contentType: "application/json", requestID: "01JD3X0Q4Z8W2E5R7T9Y1V3K5N"})
	if got.status != http.StatusOK {
		t.Fatalf("status %d (%s), want 200 from the upstream", got.status, got.body)
	}
	if got.echo.URI != "/api/v1/contacts?x=1&y=%2F" || got.echo.Method != http.MethodPost {
		t.Errorf("upstream saw %s %s", got.echo.Method, got.echo.URI)
	}
	if got.echo.TokenID != 1 || got.echo.TenantID != "TENANT1" {
		t.Errorf("upstream's verified claims: token %d tenant %q", got.echo.TokenID, got.echo.TenantID)
	}
	if got.echo.RequestID != "01JD3X0Q4Z8W2E5R7T9Y1V3K5N" || got.header.Get("X-Request-Id") != "01JD3X0Q4Z8W2E5R7T9Y1V3K5N" {
		t.Errorf("request id: upstream %q, response %q", got.echo.RequestID, got.header.Get("X-Request-Id"))
	}
	if got.echo.BodyLen != len(body) || got.echo.ContentType != "application/json" {
		t.Errorf("upstream body: %d bytes, %q", got.echo.BodyLen, got.echo.ContentType)
	}
	if got.echo.ForwardedProto != "http" || got.echo.ForwardedHost != e.url[len("http://"):] || got.echo.ForwardedFor != "127.0.0.1" {
		t.Errorf("X-Forwarded-*: proto %q host %q for %q", got.echo.ForwardedProto, got.echo.ForwardedHost, got.echo.ForwardedFor)
	}
	for _, a := range e.upstream.Authorizations() {
		if a == "Bearer "+e.token || a == "" {
			t.Errorf("upstream saw Authorization %q: the client's token must never pass", a)
		}
	}
}

func TestForwardsHostedPagesAndCallbacksWithoutToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	page := do(t, e.url, req{path: "/l/r/01JD3X0Q4Z8W2E5R7T9Y1V3K5N?expires=1&signature=ab", token: e.token})
	if page.status != http.StatusOK || page.echo.URI != "/l/r/01JD3X0Q4Z8W2E5R7T9Y1V3K5N?expires=1&signature=ab" {
		t.Fatalf("hosted page: %d %+v", page.status, page.echo)
	}
	if page.echo.Authorization != "" {
		t.Errorf("hosted page: upstream saw Authorization %q, want none", page.echo.Authorization)
	}
	form := []byte("From=%2B15555550100&Body=STOP")
	cb := do(t, e.url, req{method: http.MethodPost, path: "/webhooks/sms/inbound", body: form,
		contentType: "application/x-www-form-urlencoded"})
	if cb.status != http.StatusOK || cb.echo.BodyLen != len(form) {
		t.Fatalf("provider callback: %d %+v", cb.status, cb.echo)
	}
	if cb.header.Get("X-RateLimit-Limit") != "120" {
		t.Errorf("callback X-RateLimit-Limit = %q, want 120", cb.header.Get("X-RateLimit-Limit"))
	}
}

func TestGatewayOwnRoutes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	health := do(t, e.url, req{path: "/api/v1/healthcheck/app"})
	if health.status != http.StatusOK || string(health.body) != `{"status":"ok"}` {
		t.Errorf("health: %d %s", health.status, health.body)
	}
	wantError(t, do(t, e.url, req{path: "/api/v1/openapi.json"}), 401, "unauthenticated")
	doc := do(t, e.url, req{path: "/api/v1/openapi.json", token: e.token})
	if doc.status != http.StatusOK || string(doc.body) != testDoc {
		t.Errorf("openapi.json: %d, body equal to the document: %v", doc.status, string(doc.body) == testDoc)
	}
	if doc.header.Get("X-RateLimit-Limit") != "60" {
		t.Errorf("openapi.json X-RateLimit-Limit = %q, want 60", doc.header.Get("X-RateLimit-Limit"))
	}
}
