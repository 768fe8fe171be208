package httpapi_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/paylane/paylane/optin-svc/internal/testenv"
)

// TestHostileInput: a filter or body text holding NUL or bytes that are not
// UTF-8 is 422 naming the field; such a suppressed number in the path is
// 404; never a 500.
func TestHostileInput(t *testing.T) {
	t.Parallel()
	env := testenv.Start(t, testenv.Options{})
	tenant := env.NewTenant(t, testenv.TenantOptions{OptIn: true})
	token := env.Token(t, tenant, viewCodes, viewSuppressions, createSuppression, deleteSuppressions)
	for _, tt := range []struct{ path, field string }{
		{"/api/v1/opt-ins?contact_id=%00", "contact_id"},
		{"/api/v1/opt-ins?opt_in_code_id=%FF", "opt_in_code_id"},
		{"/api/v1/opt-ins?status=%00", "status"},
		{"/api/v1/opt-ins?since=%FF", "since"},
		{"/api/v1/opt-in-codes?active=%00", "active"},
		{"/api/v1/suppression-list?channel=%00", "channel"},
	} {
		res := env.Do(t, http.MethodGet, tt.path, token, nil)
		var body struct {
			Error struct {
				Details map[string][]string `json:"details"`
			} `json:"error"`
		}
		_ = json.Unmarshal(res.Body, &body)
		if _, ok := body.Error.Details[tt.field]; res.Status != http.StatusUnprocessableEntity || !ok {
			t.Errorf("GET %s = %d %s, want 422 naming %s", tt.path, res.Status, res.Body, tt.field)
		}
	}
	for _, path := range []string{"/api/v1/suppression-list/%2B1415%00", "/api/v1/suppression-list/%FF", "/api/v1/opt-in-codes/%00"} {
		method := http.MethodDelete
		if path == "/api/v1/opt-in-codes/%00" {
			method = http.MethodGet
		}
		if res := env.Do(t, method, path, token, nil); res.Status != http.StatusNotFound {
			t.Errorf("%s %s = %d %s, want 404", method, path, res.Status, res.Body)
		}
	}
	for _, body := range []string{
		`{"contact_phone_id":"\u0000","reason":"complaint","channel":"sms"}`,
		`{"contact_phone_id":"x","reason":"complaint\u0000","channel":"sms"}`,
		`{"contact_phone_id":"x","reason":"complaint","CHANNEL":"sms"}`,
	} {
		res := env.Do(t, http.MethodPost, "/api/v1/suppression-list", token, json.RawMessage(body))
		if res.Status != http.StatusUnprocessableEntity || res.ErrorCode() != "validation_failed" {
			t.Errorf("POST %s = %d %s, want 422", body, res.Status, res.Body)
		}
	}
}
