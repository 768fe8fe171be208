package httpapi_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/ids"
)

var timestamp = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)

// keys returns the keys of a JSON object, sorted.
func keys(t *testing.T, raw []byte) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func dataOf(t *testing.T, r result) json.RawMessage {
	t.Helper()
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(r.body, &env); err != nil {
		t.Fatal(err)
	}
	return env.Data
}

func TestContactJSON(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tok := e.token(t, tenantA, all()...)
	created := e.do(t, request{method: "POST", path: "/api/v1/contacts", token: tok, body: `{"phone":"415 555 0100","email":"ada@example.com"}`})
	base := []string{"created_at", "custom_fields", "email", "external_id", "first_name", "id", "last_name", "phone", "phone_id", "updated_at"}
	if diff := cmp.Diff(base, keys(t, dataOf(t, created))); diff != "" {
		t.Errorf("create keys (-want +got):\n%s", diff)
	}
	var c contactJSON
	created.data(t, &c)
	if !ids.Valid(c.ID) || !ids.Valid(c.PhoneID) || c.Phone != "+14155550100" || c.CustomFields == nil || len(c.CustomFields) != 0 {
		t.Errorf("created contact = %+v", c)
	}
	if c.FirstName != nil || c.ExternalID != nil {
		t.Errorf("absent fields should be null: %s", created.body)
	}
	if !timestamp.MatchString(c.CreatedAt) || !timestamp.MatchString(c.UpdatedAt) {
		t.Errorf("timestamps %q, %q are not RFC 3339 UTC with milliseconds", c.CreatedAt, c.UpdatedAt)
	}
	show := e.do(t, request{method: "GET", path: "/api/v1/contacts/" + c.ID, token: tok})
	if diff := cmp.Diff(append(slices.Clone(base), "consents", "opt_in_status"), keys(t, dataOf(t, show)), sortStrings()); diff != "" {
		t.Errorf("show keys (-want +got):\n%s", diff)
	}
	var shown contactJSON
	show.data(t, &shown)
	if shown.OptInStatus != "none" || shown.Consents == nil || len(shown.Consents) != 0 {
		t.Errorf("show opt-in = %q %v, want none and []", shown.OptInStatus, shown.Consents)
	}
	withTrashed := e.do(t, request{method: "GET", path: "/api/v1/contacts?with_trashed=1", token: tok})
	var list struct {
		Data []json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(withTrashed.body, &list); err != nil || len(list.Data) != 1 {
		t.Fatalf("list: %s", withTrashed.body)
	}
	if diff := cmp.Diff(append(slices.Clone(base), "deleted_at"), keys(t, list.Data[0]), sortStrings()); diff != "" {
		t.Errorf("with_trashed list keys (-want +got):\n%s", diff)
	}
	e.trash(t, c.ID)
	trashed := e.do(t, request{method: "GET", path: "/api/v1/contacts/" + c.ID + "?with_trashed=1", token: tok})
	var tc contactJSON
	trashed.data(t, &tc)
	if tc.DeletedAt == nil || !timestamp.MatchString(*tc.DeletedAt) {
		t.Errorf("trashed contact deleted_at = %v: %s", tc.DeletedAt, trashed.body)
	}
}

func sortStrings() cmp.Option {
	return cmp.Transformer("sort", func(in []string) []string {
		out := slices.Clone(in)
		slices.Sort(out)
		return out
	})
}

func TestPatchChangesOnlyWhatIsSent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tok := e.token(t, tenantA, all()...)
	c := e.create(t, tenantA, `{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com","phone":"`+e.phone()+`"}`)
	r := e.do(t, request{method: "PATCH", path: "/api/v1/contacts/" + c.ID, token: tok, body: `{"last_name":"King","email":null}`})
	var got contactJSON
	r.data(t, &got)
	if *got.FirstName != "Ada" || *got.LastName != "King" || got.Email != nil || got.Phone != c.Phone || got.CreatedAt != c.CreatedAt {
		t.Errorf("after PATCH: %s", r.body)
	}
	r = e.do(t, request{method: "PUT", path: "/api/v1/contacts/" + c.ID, token: tok, body: `{"phone":"` + c.Phone + `"}`})
	r.data(t, &got)
	if got.FirstName != nil || got.LastName != nil || got.Phone != c.Phone {
		t.Errorf("PUT should clear the fields it does not send: %s", r.body)
	}
}

func TestPhoneRecordIsSharedAcrossContactsOfANumber(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	first := e.create(t, tenantA, `{"phone":"+14155550100"}`)
	e.trash(t, first.ID)
	second := e.create(t, tenantA, `{"phone":"(415) 555-0100"}`)
	if second.PhoneID != first.PhoneID {
		t.Errorf("phone_id %s != %s for the same number", second.PhoneID, first.PhoneID)
	}
	other := e.create(t, tenantB, `{"phone":"+14155550100"}`)
	if other.PhoneID == first.PhoneID {
		t.Error("two tenants share a phone record")
	}
}

func TestPaginationLinks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tok := e.token(t, tenantA, all()...)
	var made []string
	for i := range 5 {
		made = append(made, e.create(t, tenantA, `{"external_id":"crm-`+strconv.Itoa(i)+`","phone":"`+e.phone()+`"}`).ID)
		if i < 2 {
			e.trash(t, made[i])
		}
	}
	r := e.do(t, request{method: "GET", path: "/api/v1/contacts?with_trashed=1&per_page=2&page=2", token: tok,
		header: map[string]string{"X-Forwarded-Proto": "https", "X-Forwarded-Host": "api.paylane.test"}})
	if r.status != http.StatusOK {
		t.Fatalf("list = %d %s", r.status, r.body)
	}
	var page struct {
		Data  []contactJSON `json:"data"`
		Links struct {
			First, Last string
			Prev, Next  *string
		} `json:"links"`
		Meta struct {
			CurrentPage int `json:"current_page"`
			PerPage     int `json:"per_page"`
			Total       int `json:"total"`
			LastPage    int `json:"last_page"`
		} `json:"meta"`
	}
	if err := json.Unmarshal(r.body, &page); err != nil {
		t.Fatal(err)
	}
	// Newest first: page 2 holds the third and second newest.
	if len(page.Data) != 2 || page.Data[0].ID != made[2] || page.Data[1].ID != made[1] {
		t.Errorf("page 2 = %v, want [%s %s]", page.Data, made[2], made[1])
	}
	base := "https://api.paylane.test/api/v1/contacts?"
	if page.Links.First != base+"page=1&per_page=2&with_trashed=1" || page.Links.Last != base+"page=3&per_page=2&with_trashed=1" ||
		page.Links.Prev == nil || *page.Links.Prev != base+"page=1&per_page=2&with_trashed=1" ||
		page.Links.Next == nil || *page.Links.Next != base+"page=3&per_page=2&with_trashed=1" {
		t.Errorf("links = %+v", page.Links)
	}
	if page.Meta.CurrentPage != 2 || page.Meta.PerPage != 2 || page.Meta.Total != 5 || page.Meta.LastPage != 3 {
		t.Errorf("meta = %+v", page.Meta)
	}
	// Defaults: 25 per page, live contacts only, filters kept in links.
	r = e.do(t, request{method: "GET", path: "/api/v1/contacts?external_id=crm-4", token: tok})
	if err := json.Unmarshal(r.body, &page); err != nil {
		t.Fatal(err)
	}
	if page.Meta.PerPage != 25 || page.Meta.Total != 1 || len(page.Data) != 1 || page.Data[0].ID != made[4] ||
		page.Links.First != "http://example.com/api/v1/contacts?external_id=crm-4&page=1" {
		t.Errorf("filtered list = %s", r.body)
	}
	phone := page.Data[0].Phone
	for _, q := range []string{"%2B" + phone[1:], "+" + phone[1:], "(" + phone[2:5] + ")%20" + phone[5:8] + "-" + phone[8:]} {
		r = e.do(t, request{method: "GET", path: "/api/v1/contacts?phone=" + q, token: tok})
		if err := json.Unmarshal(r.body, &page); err != nil || page.Meta.Total != 1 {
			t.Errorf("phone filter %s = %s", q, r.body)
		}
	}
}

func TestNationalNumbersAreReadInTheTenantsRegion(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tok, _, err := e.signer.Sign(authz.Claims{TenantID: tenantA, TokenID: 1, Abilities: all(), Region: "GB"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	r := e.do(t, request{method: http.MethodPost, path: "/api/v1/contacts", body: `{"phone":"020 7946 0018"}`, token: tok})
	if r.status != http.StatusCreated {
		t.Fatalf("create with a GB national number: %d %s", r.status, r.body)
	}
	var got struct {
		Data contactJSON `json:"data"`
	}
	if err := json.Unmarshal(r.body, &got); err != nil {
		t.Fatal(err)
	}
	if got.Data.Phone != "+442079460018" {
		t.Errorf("phone = %q, want +442079460018 (read in the token's region GB)", got.Data.Phone)
	}
}
