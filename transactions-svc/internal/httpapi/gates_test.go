package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestGates checks every route's ability (spec section 4): without it 403,
// with only it anything but 403.
func TestGates(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rec := f.create(t, "receivables", "")
	pay := f.create(t, "payables", "")
	type route struct{ method, path, ability string }
	// kindRoutes lists the routes of receivables or payables, in that order;
	// only the settle, retry and verify actions are named apart.
	kindRoutes := func(kind, id, settle, retry, verify string) []route {
		one, base := strings.TrimSuffix(kind, "s"), "/api/v1/"+kind
		return []route{
			{http.MethodGet, base, "api:view-any-" + one},
			{http.MethodPost, base, "api:create-" + one},
			{http.MethodGet, base + "/" + id, "api:view-" + one},
			{http.MethodPut, base + "/" + id, "api:update-" + one},
			{http.MethodDelete, base + "/" + id, "api:delete-" + one},
			{http.MethodPost, base + "/" + id + "/cancel", "api:delete-" + one},
			{http.MethodPost, base + "/" + id + "/resend-notification", "api:resend-transaction"},
			{http.MethodPost, base + "/" + id + "/" + settle, "api:update-transaction"},
			{http.MethodPost, base + "/" + id + "/revoke-link", "api:update-transaction"},
			{http.MethodPost, base + "/" + id + "/" + retry, "api:update-transaction"},
			{http.MethodPost, base + "/" + id + "/" + verify, "api:update-transaction"},
			{http.MethodPost, base + "/" + id + "/expire", "api:update-transaction"},
		}
	}
	routes := append(kindRoutes("receivables", rec.ID, "mark-paid", "retry-payment", "verify-payer"),
		kindRoutes("payables", pay.ID, "mark-disbursed", "retry-disbursement", "verify-identity")...)
	routes = append(routes, []route{
		{http.MethodGet, "/api/v1/transaction-field-definitions", "api:view-any-transaction-field-definition"},
		{http.MethodPost, "/api/v1/transaction-field-definitions", "api:create-transaction-field-definition"},
		{http.MethodGet, "/api/v1/transaction-field-definitions/01JD3X0Q4Z8W2E5R7T9Y1V3K5M", "api:view-transaction-field-definition"},
		{http.MethodPut, "/api/v1/transaction-field-definitions/01JD3X0Q4Z8W2E5R7T9Y1V3K5M", "api:update-transaction-field-definition"},
		{http.MethodDelete, "/api/v1/transaction-field-definitions/01JD3X0Q4Z8W2E5R7T9Y1V3K5M", "api:delete-transaction-field-definition"},
		{http.MethodGet, "/api/v1/campaigns", "api:view-any-campaign"},
		{http.MethodPost, "/api/v1/campaigns", "api:create-campaign"},
		{http.MethodGet, "/api/v1/campaigns/01JD3X0Q4Z8W2E5R7T9Y1V3K5M", "api:view-campaign"},
		{http.MethodPut, "/api/v1/campaigns/01JD3X0Q4Z8W2E5R7T9Y1V3K5M", "api:update-campaign"},
		{http.MethodDelete, "/api/v1/campaigns/01JD3X0Q4Z8W2E5R7T9Y1V3K5M", "api:delete-campaign"},
		{http.MethodPost, "/api/v1/campaigns/01JD3X0Q4Z8W2E5R7T9Y1V3K5M/publish", "api:update-campaign"},
		{http.MethodPost, "/api/v1/transactions/" + rec.TransactionID + "/campaign-assignment", "api:assign-campaign"},
	}...)
	all := strings.Fields("api:view-any-receivable api:create-receivable api:view-receivable api:update-receivable " +
		"api:delete-receivable api:view-any-payable api:create-payable api:view-payable api:update-payable api:delete-payable " +
		"api:resend-transaction api:update-transaction api:view-any-transaction-field-definition " +
		"api:create-transaction-field-definition api:view-transaction-field-definition api:update-transaction-field-definition " +
		"api:delete-transaction-field-definition api:view-any-campaign api:create-campaign api:view-campaign " +
		"api:update-campaign api:delete-campaign api:assign-campaign api:view-contact")
	for _, rt := range routes {
		t.Run(rt.method+" "+rt.path, func(t *testing.T) {
			var without []string
			for _, a := range all {
				if a != rt.ability {
					without = append(without, a)
				}
			}
			r := f.env.Do(t, rt.method, rt.path, f.env.Token(t, f.tenant, without...), "{}")
			expect(t, r, http.StatusForbidden, "forbidden")
			if r := f.env.Do(t, rt.method, rt.path, f.env.Token(t, f.tenant, rt.ability), "{}"); r.Status == http.StatusForbidden {
				t.Fatalf("with %s: 403", rt.ability)
			}
		})
	}
}
