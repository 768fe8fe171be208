package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestHostileBodies: a NUL in any text of a body, a key that differs from
// a field's name only in case and a key sent twice are each 422
// validation_failed naming the field, on every write route; nothing is
// written.
func TestHostileBodies(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	existing := e.newContact(t)
	def := e.define(t, `{"key":"note","label":"Note","type":"string"}`)
	tests := []struct {
		name, method, path, body, field string
	}{
		{"first_name", "POST", "/api/v1/contacts", `{"first_name":"A\u0000","phone":"+14155550100"}`, "first_name"},
		{"last_name", "POST", "/api/v1/contacts", `{"last_name":"\u0000","phone":"+14155550100"}`, "last_name"},
		{"external_id", "POST", "/api/v1/contacts", `{"external_id":"x\u0000","phone":"+14155550100"}`, "external_id"},
		{"email", "POST", "/api/v1/contacts", `{"email":"a\u0000@b.co","phone":"+14155550100"}`, "email"},
		{"phone", "POST", "/api/v1/contacts", `{"phone":"+1415555\u00000100"}`, "phone"},
		{"custom field value", "POST", "/api/v1/contacts", `{"phone":"+14155550100","custom_fields":{"note":"a\u0000"}}`, "custom_fields.note"},
		{"custom field key", "POST", "/api/v1/contacts", `{"phone":"+14155550100","custom_fields":{"no\u0000te":"a"}}`, "custom_fields"},
		{"PUT", "PUT", "/api/v1/contacts/" + existing.ID, `{"first_name":"\u0000","phone":"` + existing.Phone + `"}`, "first_name"},
		{"PATCH", "PATCH", "/api/v1/contacts/" + existing.ID, `{"last_name":"\u0000"}`, "last_name"},
		{"definition label", "POST", "/api/v1/contact-field-definitions", `{"key":"x","label":"\u0000","type":"string"}`, "label"},
		{"definition option", "POST", "/api/v1/contact-field-definitions", `{"key":"x","label":"X","type":"enum","options":["a","\u0000"]}`, "options.1"},
		{"definition PUT", "PUT", "/api/v1/contact-field-definitions/" + def.ID, `{"key":"note","label":"N\u0000","type":"string"}`, "label"},
		{"key in other case", "POST", "/api/v1/contacts", `{"phone":"+14155550100","PHONE":"+14155550101"}`, "PHONE"},
		{"key in other case alone", "POST", "/api/v1/contacts", `{"Phone":"+14155550100"}`, "Phone"},
		{"key twice", "POST", "/api/v1/contacts", `{"phone":"+14155550100","phone":"+14155550101"}`, "phone"},
		{"custom field key twice", "POST", "/api/v1/contacts", `{"phone":"+14155550100","custom_fields":{"note":"a","note":"b"}}`, "custom_fields.note"},
		{"PATCH key in other case", "PATCH", "/api/v1/contacts/" + existing.ID, `{"First_Name":"x"}`, "First_Name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do(t, request{method: tt.method, path: tt.path, body: tt.body, token: e.token(t, tenantA, all()...)})
			code, _, details := r.envelope()
			if r.status != http.StatusUnprocessableEntity || code != "validation_failed" {
				t.Fatalf("%s %s = %d %s, want 422 validation_failed", tt.method, tt.path, r.status, r.body)
			}
			if _, ok := details[tt.field]; !ok || len(details) != 1 {
				t.Errorf("details = %v, want only %s", details, tt.field)
			}
		})
	}
	if n := e.total(t); n != 1 {
		t.Errorf("contacts = %d, want 1 (nothing written)", n)
	}
}

// TestBulkUpsertHostileRows: a chunk row holding a NUL or a repeated or
// case-variant key is that row's error; the other rows are written.
func TestBulkUpsertHostileRows(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	p0, p4 := e.phone(), e.phone()
	items := []string{
		`{"first_name":"Fine","phone":"` + p0 + `"}`,
		`{"first_name":"A\u0000","phone":"` + e.phone() + `"}`,
		`{"phone":"` + e.phone() + `","custom_fields":{"note":"\u0000"}}`,
		`{"phone":"` + e.phone() + `","PHONE":"` + e.phone() + `"}`,
		`{"first_name":"Also fine","phone":"` + p4 + `"}`,
		`{"phone":"` + e.phone() + `","phone":"` + e.phone() + `"}`,
	}
	got := e.bulk(t, `{"batch_id":"B1","first_row_index":0,"items":[`+strings.Join(items, ",")+`]}`)
	wantErrors := []map[string][]string{
		nil,
		{"first_name": {"The first_name field must not contain the NUL character."}},
		{"custom_fields.note": {"The custom_fields.note field must not contain the NUL character."}},
		{"PHONE": {"The PHONE field is not allowed."}},
		nil,
		{"phone": {"The phone field appears more than once."}},
	}
	if len(got) != len(wantErrors) {
		t.Fatalf("results = %+v, want %d", got, len(wantErrors))
	}
	for i, r := range got {
		if diff := cmp.Diff(wantErrors[i], r.Errors); diff != "" {
			t.Errorf("row %d errors (-want +got):\n%s", i, diff)
		}
		wantAction := "failed"
		if wantErrors[i] == nil {
			wantAction = "created"
		}
		if r.Action != wantAction {
			t.Errorf("row %d action = %q, want %q", i, r.Action, wantAction)
		}
	}
	if n := e.total(t); n != 2 {
		t.Errorf("contacts = %d, want 2", n)
	}
}

// TestHostileQueries: a list filter holding %00 or bytes that are not UTF-8
// is 422 naming the parameter; such a path id is 404; never a 500.
func TestHostileQueries(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.newContact(t)
	tok := e.token(t, tenantA, all()...)
	for _, tt := range []struct{ path, field string }{
		{"/api/v1/contacts?external_id=%00", "external_id"},
		{"/api/v1/contacts?external_id=%FF", "external_id"},
		{"/api/v1/contacts?phone=%2B1415%00", "phone"},
		{"/api/v1/contacts?phone=%FF", "phone"},
		{"/api/v1/contacts?with_trashed=%00", "with_trashed"},
		{"/api/v1/contacts?page=%00", "page"},
		{"/internal/v1/contacts/search?name=%00", "name"},
		{"/internal/v1/contacts/search?name=Ada&email=%FF", "email"},
	} {
		token := tok
		if strings.HasPrefix(tt.path, "/internal/") {
			token = e.internalToken(t, tenantA)
		}
		r := e.do(t, request{method: "GET", path: tt.path, token: token})
		_, _, details := r.envelope()
		if _, ok := details[tt.field]; r.status != http.StatusUnprocessableEntity || !ok {
			t.Errorf("GET %s = %d %s, want 422 naming %s", tt.path, r.status, r.body, tt.field)
		}
	}
	for _, path := range []string{"/api/v1/contacts/%00", "/api/v1/contacts/%FF", "/api/v1/contact-field-definitions/%00", "/api/v1/contacts/%00/restore"} {
		method := "GET"
		if strings.HasSuffix(path, "/restore") {
			method = "POST"
		}
		if r := e.do(t, request{method: method, path: path, token: tok}); r.status != http.StatusNotFound {
			t.Errorf("%s %s = %d %s, want 404", method, path, r.status, r.body)
		}
	}
}
