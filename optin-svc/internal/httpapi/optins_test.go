package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/optin-svc/internal/testenv"
)

const viewCodes = "api:view-any-opt-in-code"

type codePage struct {
	Data []testenv.Code `json:"data"`
	Meta struct {
		Total   int `json:"total"`
		PerPage int `json:"per_page"`
	} `json:"meta"`
}

func codeNames(list []testenv.Code) []string {
	out := []string{}
	for _, c := range list {
		out = append(out, c.Name)
	}
	return out
}

func TestOptInCodesCreateListShow(t *testing.T) {
	t.Parallel()
	env := testenv.Start(t, testenv.Options{})
	tenant := env.NewTenant(t, testenv.TenantOptions{OptIn: true})
	token := env.Token(t, tenant, viewCodes)

	first := env.NewCode(t, tenant, map[string]any{"name": "Front desk"})
	if !first.IsDefault || !first.IsLive || first.DoubleOptIn || first.ScanCount != 0 || !ids.Valid(first.ID) {
		t.Errorf("first code = %+v, want the live default", first)
	}
	if !strings.HasPrefix(first.URL, testenv.PublicBaseURL+"/l/o/") || len(first.Path()) != len("/l/o/")+10 {
		t.Errorf("url = %q", first.URL)
	}
	env.NewCode(t, tenant, map[string]any{"name": "Poster", "double_opt_in": true})
	env.NewCode(t, tenant, map[string]any{"name": "Retired", "is_live": false})
	newDefault := env.NewCode(t, tenant, map[string]any{"name": "Counter", "is_default": true})
	if !newDefault.IsDefault {
		t.Fatalf("code = %+v, want default", newDefault)
	}

	tests := []struct {
		query string
		want  []string
	}{
		{"", []string{"Counter", "Retired", "Poster", "Front desk"}},
		{"?active=true", []string{"Counter", "Poster", "Front desk"}},
		{"?active=false", []string{"Retired"}},
		{"?per_page=2&page=2", []string{"Poster", "Front desk"}},
	}
	for _, tt := range tests {
		t.Run("list"+tt.query, func(t *testing.T) {
			res := env.Do(t, http.MethodGet, "/api/v1/opt-in-codes"+tt.query, token, nil)
			var page codePage
			res.Decode(t, &page)
			if res.Status != http.StatusOK {
				t.Fatalf("GET = %d %s", res.Status, res.Body)
			}
			if diff := cmp.Diff(tt.want, codeNames(page.Data)); diff != "" {
				t.Errorf("codes (-want +got):\n%s", diff)
			}
		})
	}
	res := env.Do(t, http.MethodGet, "/api/v1/opt-in-codes", token, nil)
	var page codePage
	res.Decode(t, &page)
	if page.Meta.PerPage != 15 || page.Meta.Total != 4 {
		t.Errorf("meta = %+v, want per_page 15 and total 4", page.Meta)
	}
	defaults := 0
	for _, c := range page.Data {
		if c.IsDefault {
			defaults++
		}
	}
	if defaults != 1 {
		t.Errorf("%d default codes, want 1", defaults)
	}

	show := env.Do(t, http.MethodGet, "/api/v1/opt-in-codes/"+first.ID, token, nil)
	var one struct{ Data testenv.Code }
	show.Decode(t, &one)
	first.IsDefault = false
	if show.Status != http.StatusOK {
		t.Fatalf("GET one = %d %s", show.Status, show.Body)
	}
	if diff := cmp.Diff(first, one.Data); diff != "" {
		t.Errorf("code (-want +got):\n%s", diff)
	}
}

func TestOptInRoutesAreHiddenWhileTheFlagIsOff(t *testing.T) {
	t.Parallel()
	env := testenv.Start(t, testenv.Options{})
	off := env.NewTenant(t, testenv.TenantOptions{OptIn: false})
	on := env.NewTenant(t, testenv.TenantOptions{OptIn: true})
	offCode := env.NewCode(t, off, map[string]any{"name": "Hidden"})
	onCode := env.NewCode(t, on, map[string]any{"name": "Shown"})
	offAll := env.Token(t, off, viewCodes)
	offNone := env.Token(t, off, "api:view-contact")
	onAll := env.Token(t, on, viewCodes)
	onNone := env.Token(t, on, "api:view-contact")

	tests := []struct {
		name, path, token string
		status            int
		code              string
	}{
		{"off: list", "/api/v1/opt-in-codes", offAll, 404, "route_not_found"},
		{"off: show", "/api/v1/opt-in-codes/" + offCode.ID, offAll, 404, "route_not_found"},
		{"off: consents", "/api/v1/opt-ins", offAll, 404, "route_not_found"},
		{"off: no ability is still 404", "/api/v1/opt-in-codes", offNone, 404, "route_not_found"},
		{"off: bad query is still 404", "/api/v1/opt-ins?status=nope", offAll, 404, "route_not_found"},
		{"on: no ability", "/api/v1/opt-in-codes", onNone, 403, "forbidden"},
		{"on: no ability on consents", "/api/v1/opt-ins", onNone, 403, "forbidden"},
		{"no token", "/api/v1/opt-in-codes", "", 401, "unauthenticated"},
		{"on: list", "/api/v1/opt-in-codes", onAll, 200, ""},
		{"on: code of another tenant", "/api/v1/opt-in-codes/" + offCode.ID, onAll, 404, "resource_not_found"},
		{"on: not an id", "/api/v1/opt-in-codes/front-desk", onAll, 404, "resource_not_found"},
		{"on: show", "/api/v1/opt-in-codes/" + onCode.ID, onAll, 200, ""},
		{"on: bad active", "/api/v1/opt-in-codes?active=yes", onAll, 422, "validation_failed"},
		{"on: bad status", "/api/v1/opt-ins?status=opted_in", onAll, 422, "validation_failed"},
		{"on: empty status", "/api/v1/opt-ins?status=", onAll, 422, "validation_failed"},
		{"on: bad since", "/api/v1/opt-ins?since=yesterday", onAll, 422, "validation_failed"},
		{"on: since with offset", "/api/v1/opt-ins?since=2026-01-01T00:00:00+01:00", onAll, 200, ""},
		{"on: consents", "/api/v1/opt-ins?status=confirmed&contact_id=" + ids.New(), onAll, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := env.Do(t, http.MethodGet, tt.path, tt.token, nil)
			if res.Status != tt.status || res.ErrorCode() != tt.code {
				t.Fatalf("GET %s = %d %s, want %d %s", tt.path, res.Status, res.Body, tt.status, tt.code)
			}
		})
	}
}

func TestAdminOptInCodeRefusals(t *testing.T) {
	t.Parallel()
	env := testenv.Start(t, testenv.Options{})
	tenant := env.NewTenant(t, testenv.TenantOptions{OptIn: true})
	path := "/admin/v1/tenants/" + tenant + "/opt-in-codes"
	tests := []struct {
		name, path, token string
		body              any
		status            int
		code              string
	}{
		{"no admin token", path, "", map[string]any{"name": "x"}, 401, "unauthenticated"},
		{"wrong admin token", path, "not-it", map[string]any{"name": "x"}, 401, "unauthenticated"},
		{"unknown tenant", "/admin/v1/tenants/" + ids.New() + "/opt-in-codes", testenv.AdminToken, map[string]any{"name": "x"}, 404, "resource_not_found"},
		{"tenant not an id", "/admin/v1/tenants/acme/opt-in-codes", testenv.AdminToken, map[string]any{"name": "x"}, 404, "resource_not_found"},
		{"no name", path, testenv.AdminToken, map[string]any{}, 422, "validation_failed"},
		{"long name", path, testenv.AdminToken, map[string]any{"name": strings.Repeat("n", 192)}, 422, "validation_failed"},
		{"unknown field", path, testenv.AdminToken, map[string]any{"name": "x", "color": "red"}, 422, "validation_failed"},
		{"wrong type", path, testenv.AdminToken, map[string]any{"name": "x", "is_live": "yes"}, 422, "validation_failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := env.Do(t, http.MethodPost, tt.path, tt.token, tt.body)
			if res.Status != tt.status || res.ErrorCode() != tt.code {
				t.Fatalf("POST %s = %d %s, want %d %s", tt.path, res.Status, res.Body, tt.status, tt.code)
			}
		})
	}
}
