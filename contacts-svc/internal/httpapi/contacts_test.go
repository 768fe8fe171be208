package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/paylane/paylane/libs/apierr"
)

// fixture is the shared state the route table runs against: a live contact,
// a trashed one and definitions of tier (enum) and seats (integer).
type fixture struct {
	live, trashed contactJSON
}

func newFixture(t *testing.T, e *env) fixture {
	t.Helper()
	for _, body := range []string{
		`{"key":"tier","label":"Tier","type":"enum","options":["gold","silver"]}`,
		`{"key":"seats","label":"Seats","type":"integer"}`,
	} {
		r := e.do(t, request{method: "POST", path: "/api/v1/contact-field-definitions", body: body, token: e.token(t, tenantA, all()...)})
		if r.status != http.StatusCreated {
			t.Fatalf("definition %s: %d %s", body, r.status, r.body)
		}
	}
	f := fixture{
		live:    e.create(t, tenantA, `{"external_id":"crm-live","first_name":"Ada","phone":"`+e.phone()+`","custom_fields":{"tier":"gold"}}`),
		trashed: e.newContact(t),
	}
	e.trash(t, f.trashed.ID)
	return f
}

func TestContactRoutes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := newFixture(t, e)
	// fresh gives a case its own live contact, so cases that write can run in parallel.
	fresh := func(t *testing.T) string { return e.newContact(t).ID }
	// takenPhone gives a trashed contact whose phone a live contact took since.
	takenPhone := func(t *testing.T) string {
		c := e.newContact(t)
		e.trash(t, c.ID)
		e.create(t, tenantA, `{"phone":"`+c.Phone+`"}`)
		return c.ID
	}
	long := strings.Repeat("a", 101)
	tests := []routeCase{
		{name: "list", method: "GET", path: "/api/v1/contacts", wantStatus: 200},
		{name: "list per_page=0", method: "GET", path: "/api/v1/contacts?per_page=0", wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "per_page"},
		{name: "list page=-1", method: "GET", path: "/api/v1/contacts?page=-1", wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "page"},
		{name: "list with_trashed=maybe", method: "GET", path: "/api/v1/contacts?with_trashed=maybe", wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "with_trashed"},
		{name: "list unparseable phone filter", method: "GET", path: "/api/v1/contacts?phone=abc", wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "phone"},

		{name: "create", method: "POST", path: "/api/v1/contacts", body: `{"phone":"+14155550001","first_name":"Ada"}`, wantStatus: 201},
		{name: "create national format", method: "POST", path: "/api/v1/contacts", body: `{"phone":"(415) 555-0002"}`, wantStatus: 201},
		{name: "create missing phone", method: "POST", path: "/api/v1/contacts", body: `{"first_name":"Ada"}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "phone"},
		{name: "create unparseable phone", method: "POST", path: "/api/v1/contacts", body: `{"phone":"not a number"}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "phone"},
		{name: "create invalid phone", method: "POST", path: "/api/v1/contacts", body: `{"phone":"+1415555"}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "phone"},
		{name: "create phone not a string", method: "POST", path: "/api/v1/contacts", body: `{"phone":4155550003}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "phone"},
		{name: "create email not an email", method: "POST", path: "/api/v1/contacts", body: `{"phone":"+14155550004","email":"ada-at-example"}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "email"},
		{name: "create first name over 100", method: "POST", path: "/api/v1/contacts", body: `{"phone":"+14155550005","first_name":"` + long + `"}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "first_name"},
		{name: "create last name over 100", method: "POST", path: "/api/v1/contacts", body: `{"phone":"+14155550006","last_name":"` + long + `"}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "last_name"},
		{name: "create custom_fields not an object", method: "POST", path: "/api/v1/contacts", body: `{"phone":"+14155550007","custom_fields":["gold"]}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "custom_fields"},
		{name: "create custom_fields a string", method: "POST", path: "/api/v1/contacts", body: `{"phone":"+14155550007","custom_fields":"gold"}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "custom_fields"},
		{name: "create unknown custom field", method: "POST", path: "/api/v1/contacts", body: `{"phone":"+14155550008","custom_fields":{"colour":"red"}}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "custom_fields.colour"},
		{name: "create custom field of the wrong type", method: "POST", path: "/api/v1/contacts", body: `{"phone":"+14155550009","custom_fields":{"seats":"two"}}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "custom_fields.seats"},
		{name: "create enum value not an option", method: "POST", path: "/api/v1/contacts", body: `{"phone":"+14155550010","custom_fields":{"tier":"bronze"}}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "custom_fields.tier"},
		{name: "create unknown field", method: "POST", path: "/api/v1/contacts", body: `{"phone":"+14155550011","nickname":"Ada"}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "nickname"},
		{name: "create with a read-only field", method: "POST", path: "/api/v1/contacts", body: `{"phone":"+14155550012","id":"01HZX3K5Q8V9W2Y4Z6A7B8C9DE"}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "id"},
		{name: "create phone of a live contact", method: "POST", path: "/api/v1/contacts", body: `{"phone":"` + f.live.Phone + `"}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "phone"},
		{name: "create phone of a trashed contact", method: "POST", path: "/api/v1/contacts", body: `{"phone":"` + f.trashed.Phone + `"}`, wantStatus: 201},
		{name: "create external id of a live contact", method: "POST", path: "/api/v1/contacts", body: `{"phone":"+14155550013","external_id":"crm-live"}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "external_id"},
		{name: "create invalid json", method: "POST", path: "/api/v1/contacts", body: `{"phone":`, wantStatus: 400, wantCode: apierr.CodeBadRequest},
		{name: "create array body", method: "POST", path: "/api/v1/contacts", body: `[{"phone":"+14155550014"}]`, wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "body"},

		{name: "show", method: "GET", path: "/api/v1/contacts/" + f.live.ID, wantStatus: 200},
		{name: "show id not a ulid", method: "GET", path: "/api/v1/contacts/12345", wantStatus: 404, wantCode: apierr.CodeResourceNotFound},
		{name: "show lower-case ulid", method: "GET", path: "/api/v1/contacts/" + strings.ToLower(f.live.ID), wantStatus: 404, wantCode: apierr.CodeResourceNotFound},
		{name: "show unknown ulid", method: "GET", path: "/api/v1/contacts/01HZX3K5Q8V9W2Y4Z6A7B8C9DE", wantStatus: 404, wantCode: apierr.CodeResourceNotFound},
		{name: "show trashed", method: "GET", path: "/api/v1/contacts/" + f.trashed.ID, wantStatus: 404, wantCode: apierr.CodeResourceNotFound},
		{name: "show trashed with_trashed", method: "GET", path: "/api/v1/contacts/" + f.trashed.ID + "?with_trashed=1", wantStatus: 200},

		{name: "put", method: "PUT", path: "/api/v1/contacts/{id}", setup: fresh, body: `{"phone":"` + "+14155550015" + `","last_name":"Byron"}`, wantStatus: 200},
		{name: "put ignores read-only fields", method: "PUT", path: "/api/v1/contacts/{id}", setup: fresh, body: `{"phone":"+14155550016","id":"X","created_at":"then","phone_id":"Y","opt_in_status":"opted_in","consents":[]}`, wantStatus: 200},
		{name: "put without phone", method: "PUT", path: "/api/v1/contacts/" + f.live.ID, body: `{"first_name":"Ada"}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "phone"},
		{name: "put unknown field", method: "PUT", path: "/api/v1/contacts/" + f.live.ID, body: `{"phone":"+14155550017","sned_at":"now"}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "sned_at"},
		{name: "put id not a ulid", method: "PUT", path: "/api/v1/contacts/nope", body: `{"phone":"+14155550018"}`, wantStatus: 404, wantCode: apierr.CodeResourceNotFound},
		{name: "put trashed", method: "PUT", path: "/api/v1/contacts/" + f.trashed.ID, body: `{"phone":"+14155550019"}`, wantStatus: 404, wantCode: apierr.CodeResourceNotFound},
		{name: "put phone of another live contact", method: "PUT", path: "/api/v1/contacts/{id}", setup: fresh, body: `{"phone":"` + f.live.Phone + `"}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "phone"},

		{name: "patch", method: "PATCH", path: "/api/v1/contacts/{id}", setup: fresh, body: `{"first_name":"Augusta"}`, wantStatus: 200},
		{name: "patch null phone", method: "PATCH", path: "/api/v1/contacts/" + f.live.ID, body: `{"phone":null}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "phone"},
		{name: "patch custom_fields not an object", method: "PATCH", path: "/api/v1/contacts/" + f.live.ID, body: `{"custom_fields":"gold"}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "custom_fields"},
		{name: "patch first name not a string", method: "PATCH", path: "/api/v1/contacts/" + f.live.ID, body: `{"first_name":5}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "first_name"},
		{name: "patch email not an email", method: "PATCH", path: "/api/v1/contacts/" + f.live.ID, body: `{"email":"@"}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "email"},
		{name: "patch id not a ulid", method: "PATCH", path: "/api/v1/contacts/nope", body: `{}`, wantStatus: 404, wantCode: apierr.CodeResourceNotFound},

		{name: "delete", method: "DELETE", path: "/api/v1/contacts/{id}", setup: fresh, wantStatus: 204},
		{name: "delete trashed", method: "DELETE", path: "/api/v1/contacts/" + f.trashed.ID, wantStatus: 404, wantCode: apierr.CodeResourceNotFound},
		{name: "delete id not a ulid", method: "DELETE", path: "/api/v1/contacts/nope", wantStatus: 404, wantCode: apierr.CodeResourceNotFound},

		{name: "restore", method: "POST", path: "/api/v1/contacts/{id}/restore", setup: func(t *testing.T) string { c := e.newContact(t); e.trash(t, c.ID); return c.ID }, wantStatus: 200},
		{name: "restore live", method: "POST", path: "/api/v1/contacts/" + f.live.ID + "/restore", wantStatus: 422, wantCode: apierr.CodeInvalidTransition},
		{name: "restore with phone taken since", method: "POST", path: "/api/v1/contacts/{id}/restore", setup: takenPhone, wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "phone"},
		{name: "restore id not a ulid", method: "POST", path: "/api/v1/contacts/nope/restore", wantStatus: 404, wantCode: apierr.CodeResourceNotFound},
		{name: "restore unknown field", method: "POST", path: "/api/v1/contacts/" + f.trashed.ID + "/restore", body: `{"force":true}`, wantStatus: 422, wantCode: apierr.CodeValidationFailed, wantDetail: "force"},

		{name: "wrong method", method: "PATCH", path: "/api/v1/contacts", wantStatus: 405, wantCode: apierr.CodeMethodNotAllowed},
	}
	runRouteCases(t, e, tests)
}

// checkResult asserts status, error.code and that error.details names a key.
func checkResult(t *testing.T, r result, status int, code, detail string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status = %d, want %d (body %s)", r.status, status, r.body)
	}
	gotCode, _, details := r.envelope()
	if gotCode != code {
		t.Errorf("error.code = %q, want %q (body %s)", gotCode, code, r.body)
	}
	if detail != "" {
		if _, ok := details[detail]; !ok {
			t.Errorf("error.details = %v, want a key %q", details, detail)
		}
	}
}

func TestRestoreLiveNamesTheStates(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.newContact(t)
	r := e.do(t, request{method: "POST", path: "/api/v1/contacts/" + c.ID + "/restore", token: e.token(t, tenantA, all()...)})
	code, message, details := r.envelope()
	if r.status != 422 || code != apierr.CodeInvalidTransition || message != "active -> active" {
		t.Fatalf("= %d %s %q, want 422 invalid_transition \"active -> active\"", r.status, code, message)
	}
	if details["from"] != "active" || details["to"] != "active" {
		t.Errorf("details = %v, want from/to active", details)
	}
}

func TestRestoreWithExternalIDTakenSince(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.create(t, tenantA, `{"external_id":"crm-9","phone":"`+e.phone()+`"}`)
	e.trash(t, c.ID)
	e.create(t, tenantA, `{"external_id":"crm-9","phone":"`+e.phone()+`"}`)
	r := e.do(t, request{method: "POST", path: "/api/v1/contacts/" + c.ID + "/restore", token: e.token(t, tenantA, all()...)})
	checkResult(t, r, 422, apierr.CodeValidationFailed, "external_id")
}

func TestMissingRequiredCustomField(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tok := e.token(t, tenantA, all()...)
	r := e.do(t, request{method: "POST", path: "/api/v1/contact-field-definitions", token: tok,
		body: `{"key":"tier","label":"Tier","type":"enum","options":["gold"],"required":true}`})
	if r.status != 201 {
		t.Fatalf("definition: %d %s", r.status, r.body)
	}
	r = e.do(t, request{method: "POST", path: "/api/v1/contacts", token: tok, body: `{"phone":"` + e.phone() + `"}`})
	checkResult(t, r, 422, apierr.CodeValidationFailed, "custom_fields.tier")
	r = e.do(t, request{method: "POST", path: "/api/v1/contacts", token: tok, body: `{"phone":"` + e.phone() + `","custom_fields":{"tier":"gold"}}`})
	checkResult(t, r, 201, "", "")
}
