package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/ids"
)

func TestAdminRoutesRequireTheAdminToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tenantID := e.createTenant(t, `{"name":"Acme"}`)
	routes := []struct{ method, path string }{
		{http.MethodPost, "/admin/v1/tenants"},
		{http.MethodGet, "/admin/v1/tenants"},
		{http.MethodGet, "/admin/v1/tenants/" + tenantID},
		{http.MethodPatch, "/admin/v1/tenants/" + tenantID},
		{http.MethodPost, "/admin/v1/tenants/" + tenantID + "/tokens"},
		{http.MethodGet, "/admin/v1/tenants/" + tenantID + "/tokens"},
		{http.MethodDelete, "/admin/v1/tenants/" + tenantID + "/tokens/1"},
	}
	headers := []struct{ name, value string }{
		{"no header", ""},
		{"wrong token", "Bearer not-the-admin-token"},
		{"token prefix", "Bearer " + adminToken[:len(adminToken)-1]},
		{"basic scheme", "Basic " + adminToken},
		{"bare token", adminToken},
	}
	for _, rt := range routes {
		for _, h := range headers {
			t.Run(rt.method+" "+rt.path+" "+h.name, func(t *testing.T) {
				r := e.callWith(t, rt.method, rt.path, `{"name":"x"}`, h.value)
				expect(t, r, http.StatusUnauthorized, "unauthenticated")
			})
		}
	}
}

func TestCreateTenant(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tests := []struct {
		name string
		body string
		want client.Tenant
	}{
		{"defaults", `{"name":"Acme"}`, client.Tenant{
			Name: "Acme", DefaultCurrency: "USD", DefaultRegion: "US",
			Limits: authz.Limits{APIRequestsPerMinute: 60, BatchSubmissionsPerMinute: 10, BatchesInFlight: 2},
		}},
		{"everything", `{"name":"Globex","default_currency":"EUR","default_region":"DE","sms_number":"+4915112345678",
			"flags":{"ai_gateway":true,"opt_in":true},"limits":{"api_requests_per_minute":120,"batches_in_flight":5}}`,
			client.Tenant{
				Name: "Globex", DefaultCurrency: "EUR", DefaultRegion: "DE", SMSNumber: ptr("+4915112345678"),
				Flags:  authz.Flags{AIGateway: true, OptIn: true},
				Limits: authz.Limits{APIRequestsPerMinute: 120, BatchSubmissionsPerMinute: 10, BatchesInFlight: 5},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.call(t, http.MethodPost, "/admin/v1/tenants", tt.body)
			expect(t, r, http.StatusCreated, "")
			var got client.Tenant
			r.data(t, &got)
			if !ids.Valid(got.ID) || got.CreatedAt.IsZero() || !got.CreatedAt.Equal(got.UpdatedAt) {
				t.Errorf("id %q, created_at %v, updated_at %v", got.ID, got.CreatedAt, got.UpdatedAt)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(client.Tenant{}, "ID", "CreatedAt", "UpdatedAt")); diff != "" {
				t.Errorf("created tenant (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCreateTenantRejects(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.createTenant(t, `{"name":"Taken","sms_number":"+15550001111"}`)
	tests := []struct {
		name, body string
		status     int
		code       string
		fields     []string
	}{
		{"missing name", `{}`, 422, "validation_failed", []string{"name"}},
		{"empty body", ``, 422, "validation_failed", []string{"name"}},
		{"bad currency and region", `{"name":"A","default_currency":"usd","default_region":"USA"}`, 422, "validation_failed", []string{"default_currency", "default_region"}},
		{"bad sms number", `{"name":"A","sms_number":"12345"}`, 422, "validation_failed", []string{"sms_number"}},
		{"sms number taken", `{"name":"A","sms_number":"+15550001111"}`, 422, "validation_failed", []string{"sms_number"}},
		{"zero limit", `{"name":"A","limits":{"batches_in_flight":0}}`, 422, "validation_failed", []string{"limits.batches_in_flight"}},
		{"limit of the wrong type", `{"name":"A","limits":{"api_requests_per_minute":"lots"}}`, 422, "validation_failed", []string{"limits.api_requests_per_minute"}},
		{"ai guardrails not positive", `{"name":"A","limits":{"ai_max_amount":0,"ai_daily_amount":-5}}`, 422, "validation_failed", []string{"limits.ai_daily_amount", "limits.ai_max_amount"}},
		{"ai guardrail not an integer", `{"name":"A","limits":{"ai_max_amount":10.5}}`, 422, "validation_failed", []string{"limits.ai_max_amount"}},
		{"unknown field", `{"name":"A","colour":"red"}`, 422, "validation_failed", []string{"colour"}},
		{"unknown nested field", `{"name":"A","flags":{"beta":true}}`, 422, "validation_failed", []string{"flags.beta"}},
		{"not an object", `["A"]`, 422, "validation_failed", nil},
		{"not json", `{"name":`, 400, "bad_request", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.call(t, http.MethodPost, "/admin/v1/tenants", tt.body)
			expect(t, r, tt.status, tt.code)
			if tt.fields != nil {
				if diff := cmp.Diff(tt.fields, keys(r.errorDetails(t))); diff != "" {
					t.Errorf("details fields (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestAIGuardrails sets, reads and removes a tenant's AI gateway
// guardrails: minor units, null meaning none; token introspection carries
// them in the claims' limits.
func TestAIGuardrails(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.createTenant(t, `{"name":"Acme","limits":{"ai_max_amount":50000}}`)
	r := e.call(t, http.MethodPatch, "/admin/v1/tenants/"+id, `{"limits":{"ai_daily_amount":120000}}`)
	expect(t, r, http.StatusOK, "")
	var got client.Tenant
	r.data(t, &got)
	if got.Limits.AIMaxAmount == nil || *got.Limits.AIMaxAmount != 50000 || got.Limits.AIDailyAmount == nil || *got.Limits.AIDailyAmount != 120000 {
		t.Fatalf("limits %+v, want ai_max_amount 50000 and ai_daily_amount 120000", got.Limits)
	}
	r = e.call(t, http.MethodPatch, "/admin/v1/tenants/"+id, `{"limits":{"ai_max_amount":null}}`)
	expect(t, r, http.StatusOK, "")
	if !strings.Contains(string(r.body), `"ai_max_amount":null`) || !strings.Contains(string(r.body), `"ai_daily_amount":120000`) {
		t.Fatalf("after removing ai_max_amount: %s", r.body)
	}
}

func TestGetTenant(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.createTenant(t, `{"name":"Acme"}`)
	r := e.call(t, http.MethodGet, "/admin/v1/tenants/"+id, "")
	expect(t, r, http.StatusOK, "")
	var got client.Tenant
	r.data(t, &got)
	if got.ID != id || got.Name != "Acme" {
		t.Errorf("got %+v", got)
	}
	for _, path := range []string{"/admin/v1/tenants/" + ids.New(), "/admin/v1/tenants/not-a-ulid", "/admin/v1/tenants/" + lower(id)} {
		expect(t, e.call(t, http.MethodGet, path, ""), http.StatusNotFound, "resource_not_found")
	}
}

func TestListTenants(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	first := e.createTenant(t, `{"name":"First"}`)
	second := e.createTenant(t, `{"name":"Second"}`)
	r := e.call(t, http.MethodGet, "/admin/v1/tenants?per_page=1", "")
	expect(t, r, http.StatusOK, "")
	var page client.TenantPage
	if err := jsonUnmarshal(r.body, &page); err != nil {
		t.Fatal(err)
	}
	if page.Meta.Total != 2 || page.Meta.LastPage != 2 || len(page.Data) != 1 || page.Data[0].ID != second {
		t.Errorf("page 1 = %+v, want the newest (%s) of 2", page, second)
	}
	r = e.call(t, http.MethodGet, "/admin/v1/tenants?per_page=1&page=2", "")
	if err := jsonUnmarshal(r.body, &page); err != nil {
		t.Fatal(err)
	}
	if len(page.Data) != 1 || page.Data[0].ID != first {
		t.Errorf("page 2 = %+v, want %s", page, first)
	}
	expect(t, e.call(t, http.MethodGet, "/admin/v1/tenants?page=0", ""), 422, "validation_failed")
}

func TestUpdateTenant(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.createTenant(t, `{"name":"Acme","sms_number":"+15550001111","flags":{"ai_gateway":true},"limits":{"api_requests_per_minute":99}}`)
	other := e.createTenant(t, `{"name":"Other","sms_number":"+15550002222"}`)

	r := e.call(t, http.MethodPatch, "/admin/v1/tenants/"+id, `{"flags":{"opt_in":true},"limits":{"api_requests_per_minute":null,"batches_in_flight":7}}`)
	expect(t, r, http.StatusOK, "")
	var got client.Tenant
	r.data(t, &got)
	want := client.Tenant{
		ID: id, Name: "Acme", DefaultCurrency: "USD", DefaultRegion: "US", SMSNumber: ptr("+15550001111"),
		Flags:  authz.Flags{AIGateway: true, OptIn: true},
		Limits: authz.Limits{APIRequestsPerMinute: 60, BatchSubmissionsPerMinute: 10, BatchesInFlight: 7},
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(client.Tenant{}, "CreatedAt", "UpdatedAt")); diff != "" {
		t.Errorf("updated tenant (-want +got):\n%s", diff)
	}
	if got.UpdatedAt.Before(got.CreatedAt) {
		t.Errorf("updated_at %v before created_at %v", got.UpdatedAt, got.CreatedAt)
	}

	r = e.call(t, http.MethodPatch, "/admin/v1/tenants/"+id, `{"sms_number":null,"name":"Acme 2"}`)
	expect(t, r, http.StatusOK, "")
	r.data(t, &got)
	if got.SMSNumber != nil || got.Name != "Acme 2" {
		t.Errorf("after removing the number: %+v", got)
	}

	tests := []struct {
		name, path, body string
		status           int
		code             string
	}{
		{"blank name", "/admin/v1/tenants/" + id, `{"name":""}`, 422, "validation_failed"},
		{"unknown field", "/admin/v1/tenants/" + id, `{"id":"x"}`, 422, "validation_failed"},
		{"number of another tenant", "/admin/v1/tenants/" + id, `{"sms_number":"+15550002222"}`, 422, "validation_failed"},
		{"unknown tenant", "/admin/v1/tenants/" + ids.New(), `{"name":"x"}`, 404, "resource_not_found"},
		{"malformed id", "/admin/v1/tenants/123", `{"name":"x"}`, 404, "resource_not_found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expect(t, e.call(t, http.MethodPatch, tt.path, tt.body), tt.status, tt.code)
		})
	}
	r = e.call(t, http.MethodGet, "/admin/v1/tenants/"+other, "")
	r.data(t, &got)
	if got.SMSNumber == nil || *got.SMSNumber != "+15550002222" {
		t.Errorf("other tenant's number changed: %+v", got)
	}
}
