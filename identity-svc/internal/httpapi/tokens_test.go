package httpapi_test

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/libs/ids"
)

var tokenFormat = regexp.MustCompile(`^pl_([1-9][0-9]*)\|[A-Za-z0-9]{48}$`)

func TestCreateToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tenantID := e.createTenant(t, `{"name":"Acme"}`)
	expires := time.Now().Add(24 * time.Hour).UTC().Truncate(time.Millisecond)
	body := fmt.Sprintf(`{"name":"ci","abilities":["api:view-contact","api:create-contact","api:view-contact"],"expires_at":%q}`,
		expires.Format(time.RFC3339Nano))
	r := e.call(t, http.MethodPost, "/admin/v1/tenants/"+tenantID+"/tokens", body)
	expect(t, r, http.StatusCreated, "")
	var got client.NewToken
	r.data(t, &got)
	m := tokenFormat.FindStringSubmatch(got.Token)
	if m == nil || m[1] != strconv.FormatInt(got.ID, 10) {
		t.Fatalf("token %q does not have the form pl_%d|<48 alphanumerics>", got.Token, got.ID)
	}
	want := client.NewToken{ID: got.ID, Name: "ci", Abilities: []string{"api:view-contact", "api:create-contact"},
		ExpiresAt: &expires, Token: got.Token}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("created token (-want +got):\n%s", diff)
	}
	_, second := e.createToken(t, tenantID, `{"name":"ci","abilities":["api:view-contact"]}`)
	if second == got.Token {
		t.Error("two tokens share a plaintext")
	}
}

func TestCreateTokenRejects(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tenantID := e.createTenant(t, `{"name":"Acme"}`)
	path := "/admin/v1/tenants/" + tenantID + "/tokens"
	past := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	tests := []struct {
		name, path, body string
		status           int
		code             string
		details          map[string][]string
	}{
		{"unknown ability", path, `{"name":"ci","abilities":["api:view-contact","api:launch-rocket"]}`, 422, "validation_failed",
			map[string][]string{"abilities": {"Unknown abilities: api:launch-rocket."}}},
		{"wildcard", path, `{"name":"ci","abilities":["*"]}`, 422, "validation_failed", nil},
		{"no abilities", path, `{"name":"ci","abilities":[]}`, 422, "validation_failed", nil},
		{"missing name", path, `{"abilities":["api:view-contact"]}`, 422, "validation_failed", nil},
		{"past expiry", path, `{"name":"ci","abilities":["api:view-contact"],"expires_at":"` + past + `"}`, 422, "validation_failed", nil},
		{"unparsable expiry", path, `{"name":"ci","abilities":["api:view-contact"],"expires_at":"tomorrow"}`, 422, "validation_failed",
			map[string][]string{"expires_at": {"The expires at field must be an RFC 3339 date-time."}}},
		{"unknown field", path, `{"name":"ci","abilities":["api:view-contact"],"scopes":["x"]}`, 422, "validation_failed",
			map[string][]string{"scopes": {"The scopes field is not allowed."}}},
		{"abilities not a list", path, `{"name":"ci","abilities":"api:view-contact"}`, 422, "validation_failed", nil},
		{"unknown tenant", "/admin/v1/tenants/" + ids.New() + "/tokens", `{"name":"ci","abilities":["api:view-contact"]}`, 404, "resource_not_found", nil},
		{"malformed tenant id", "/admin/v1/tenants/acme/tokens", `{"name":"ci","abilities":["api:view-contact"]}`, 404, "resource_not_found", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.call(t, http.MethodPost, tt.path, tt.body)
			expect(t, r, tt.status, tt.code)
			if tt.details != nil {
				if diff := cmp.Diff(tt.details, r.errorDetails(t)); diff != "" {
					t.Errorf("details (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestListTokensShowsNoSecrets(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tenantID := e.createTenant(t, `{"name":"Acme"}`)
	firstID, first := e.createToken(t, tenantID, `{"name":"one","abilities":["api:view-contact"]}`)
	secondID, _ := e.createToken(t, tenantID, `{"name":"two","abilities":["api:view-contact"]}`)
	r := e.call(t, http.MethodGet, "/admin/v1/tenants/"+tenantID+"/tokens", "")
	expect(t, r, http.StatusOK, "")
	_, secret, _ := strings.Cut(first, "|")
	for _, leak := range []string{secret, `"token"`, "secret"} {
		if strings.Contains(string(r.body), leak) {
			t.Errorf("token list contains %q: %s", leak, r.body)
		}
	}
	var page client.TokenPage
	if err := jsonUnmarshal(r.body, &page); err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, tok := range page.Data {
		got = append(got, tok.ID)
	}
	if diff := cmp.Diff([]int64{secondID, firstID}, got); diff != "" || page.Meta.Total != 2 {
		t.Errorf("listed ids, newest first (-want +got):\n%s (total %d)", diff, page.Meta.Total)
	}
	expect(t, e.call(t, http.MethodGet, "/admin/v1/tenants/"+ids.New()+"/tokens", ""), http.StatusNotFound, "resource_not_found")
}

func TestRevokeToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tenantID := e.createTenant(t, `{"name":"Acme"}`)
	otherID := e.createTenant(t, `{"name":"Other"}`)
	id, plaintext := e.createToken(t, tenantID, `{"name":"ci","abilities":["api:view-contact"]}`)
	path := fmt.Sprintf("/admin/v1/tenants/%s/tokens/%d", tenantID, id)

	expect(t, e.introspect(t, plaintext), http.StatusOK, "")
	expect(t, e.call(t, http.MethodDelete, fmt.Sprintf("/admin/v1/tenants/%s/tokens/%d", otherID, id), ""), http.StatusNotFound, "resource_not_found")
	expect(t, e.introspect(t, plaintext), http.StatusOK, "")

	r := e.call(t, http.MethodDelete, path, "")
	expect(t, r, http.StatusNoContent, "")
	if len(r.body) != 0 {
		t.Errorf("204 with body %q", r.body)
	}
	expect(t, e.introspect(t, plaintext), http.StatusUnauthorized, "unauthenticated")
	expect(t, e.call(t, http.MethodDelete, path, ""), http.StatusNoContent, "")

	for _, p := range []string{
		fmt.Sprintf("/admin/v1/tenants/%s/tokens/%d", tenantID, id+1000),
		fmt.Sprintf("/admin/v1/tenants/%s/tokens/abc", tenantID),
		fmt.Sprintf("/admin/v1/tenants/%s/tokens/-1", tenantID),
		fmt.Sprintf("/admin/v1/tenants/%s/tokens/%d", ids.New(), id),
	} {
		expect(t, e.call(t, http.MethodDelete, p, ""), http.StatusNotFound, "resource_not_found")
	}
}
