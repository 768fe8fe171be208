package httpapi_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/optin-svc/internal/testenv"
)

// TestOptInsAreNewestFirst: GET /opt-ins lists consents newest consented_at
// first (spec section 4), filtered and paged in that order.
func TestOptInsAreNewestFirst(t *testing.T) {
	t.Parallel()
	env := testenv.Start(t, testenv.Options{})
	tenant := env.NewTenant(t, testenv.TenantOptions{OptIn: true})
	token := env.Token(t, tenant, viewCodes)
	desk := env.NewCode(t, tenant, map[string]any{"name": "Desk"})
	poster := env.NewCode(t, tenant, map[string]any{"name": "Poster"})
	numbers := []string{"+14155550301", "+14155550302", "+14155550303", "+14155550304"}
	codes := []testenv.Code{desk, poster, desk, poster}
	for i, n := range numbers {
		env.Subscribe(t, codes[i], n)
	}
	contactOf := func(list []consentRow) []string {
		out := []string{}
		for _, c := range list {
			out = append(out, c.ContactID)
		}
		return out
	}
	contacts := func(idx ...int) []string {
		out := []string{}
		for _, i := range idx {
			out = append(out, env.Contacts.ContactOf(tenant, numbers[i]))
		}
		return out
	}
	tests := []struct {
		query string
		want  []string
	}{
		{"", contacts(3, 2, 1, 0)},
		{"?opt_in_code_id=" + desk.ID, contacts(2, 0)},
		{"?per_page=3", contacts(3, 2, 1)},
		{"?per_page=3&page=2", contacts(0)},
		{"?status=confirmed&opt_in_code_id=" + poster.ID, contacts(3, 1)},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, contactOf(consents(t, env, token, tt.query))); diff != "" {
			t.Errorf("GET /opt-ins%s (-want +got):\n%s", tt.query, diff)
		}
	}
}
