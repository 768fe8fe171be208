package aigatewaysvc_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/paylane/paylane/ai-gateway-svc/internal/testenv"
)

// TestHostileBodies: a NUL in any text of an AI-gateway body, a key in
// other case and a repeated key are 422 naming the field, before any peer
// is called; never a 500.
func TestHostileBodies(t *testing.T) {
	s := testenv.Start(t, nil)
	tok := s.Token(t, "t1", true, all()...)
	for _, tt := range []struct{ path, body, field string }{
		{"/api/v1/gateway/resolve-contact", `{"name":"Ada\u0000"}`, "name"},
		{"/api/v1/gateway/resolve-contact", `{"name":"Ada","phone":"+1\u0000"}`, "phone"},
		{"/api/v1/gateway/resolve-contact", `{"name":"Ada","email":"\u0000"}`, "email"},
		{"/api/v1/gateway/resolve-contact", `{"NAME":"Ada"}`, "NAME"},
		{"/api/v1/gateway/resolve-contact", `{"name":"Ada","name":"Bob"}`, "name"},
		{"/api/v1/gateway/resolve-contact", `{"name":"` + strings.Repeat("a", 150_000) + `"}`, "name"},
		{"/api/v1/gateway/resolve-contact", `{"name":"Ada","phone":"` + strings.Repeat("1", 65) + `"}`, "phone"},
		{"/api/v1/gateway/resolve-contact", `{"name":"Ada","email":"` + strings.Repeat("a", 250) + `@b.co"}`, "email"},
		{"/api/v1/gateway/contacts", `{"first_name":"\u0000","last_name":"L","phone":"+14155550123"}`, "first_name"},
		{"/api/v1/gateway/transactions/prepare", `{"direction":"receivable","contact_id":"C","amount":100,"description":"\u0000"}`, "description"},
		{"/api/v1/gateway/transactions/prepare", `{"direction":"receivable","contact_id":"\u0000","amount":100}`, "contact_id"},
	} {
		r := s.Do(t, http.MethodPost, tt.path, tok, json.RawMessage(tt.body))
		var env struct {
			Error struct {
				Code    string              `json:"code"`
				Details map[string][]string `json:"details"`
			} `json:"error"`
		}
		_ = json.Unmarshal(r.Body, &env)
		if _, ok := env.Error.Details[tt.field]; r.Status != http.StatusUnprocessableEntity || !ok {
			t.Errorf("POST %s %s = %d %s, want 422 naming %s", tt.path, tt.body, r.Status, r.Body, tt.field)
		}
	}
}
