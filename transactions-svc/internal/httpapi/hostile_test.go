package httpapi_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fieldProblem sends a request and checks it is 422 validation_failed
// whose details name exactly field.
func (f fixture) fieldProblem(t *testing.T, method, path, body, field string) {
	t.Helper()
	r := f.do(t, method, path, body)
	var env struct {
		Error struct {
			Code    string              `json:"code"`
			Details map[string][]string `json:"details"`
		} `json:"error"`
	}
	_ = json.Unmarshal(r.Body, &env)
	if r.Status != http.StatusUnprocessableEntity || env.Error.Code != "validation_failed" {
		t.Fatalf("%s %s %s = %d %s, want 422 validation_failed", method, path, body, r.Status, r.Body)
	}
	if _, ok := env.Error.Details[field]; !ok || len(env.Error.Details) != 1 {
		t.Errorf("%s %s %s: details = %v, want only %s", method, path, body, env.Error.Details, field)
	}
}

// TestHostileBodies: a NUL in any text of a body, a key that differs from
// a field's name only in case and a key sent twice are each 422 naming the
// field, never a 500.
func TestHostileBodies(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rec := f.create(t, "receivables", "")
	camp := f.campaign(t, `{"name":"C","direction":"receivable"}`, false)
	c := `"contact_id":"` + f.contact + `","amount":100`
	tests := []struct{ name, method, path, body, field string }{
		{"receivable description", "POST", "/api/v1/receivables", `{` + c + `,"description":"a\u0000"}`, "description"},
		{"receivable external_id", "POST", "/api/v1/receivables", `{` + c + `,"external_id":"\u0000"}`, "external_id"},
		{"receivable currency", "POST", "/api/v1/receivables", `{` + c + `,"currency":"US\u0000"}`, "currency"},
		{"receivable contact id", "POST", "/api/v1/receivables", `{"contact_id":"\u0000","amount":100}`, "contact_id"},
		{"receivable contact external_id", "POST", "/api/v1/receivables", `{"contact":{"external_id":"\u0000"},"amount":100}`, "contact.external_id"},
		{"receivable custom field", "POST", "/api/v1/receivables", `{` + c + `,"custom_fields":{"note":"\u0000"}}`, "custom_fields.note"},
		{"receivable custom field key", "POST", "/api/v1/receivables", `{` + c + `,"custom_fields":{"\u0000":"x"}}`, "custom_fields"},
		{"payable description", "POST", "/api/v1/payables", `{` + c + `,"description":"\u0000"}`, "description"},
		{"payable external_id", "POST", "/api/v1/payables", `{` + c + `,"external_id":"x\u0000"}`, "external_id"},
		{"receivable PUT", "PUT", "/api/v1/receivables/" + rec.ID, `{` + c + `,"description":"\u0000"}`, "description"},
		{"mark-paid reference", "POST", "/api/v1/receivables/" + rec.ID + "/mark-paid", `{"reference":"\u0000"}`, "reference"},
		{"campaign name", "POST", "/api/v1/campaigns", `{"name":"\u0000","direction":"receivable"}`, "name"},
		{"campaign step", "POST", "/api/v1/campaigns", `{"name":"C","direction":"receivable","steps":[{"delay_hours":1,"message":"x\u0000"}]}`, "steps.0.message"},
		{"campaign rule value", "POST", "/api/v1/campaigns", `{"name":"C","direction":"receivable","rules":[{"field":"currency","op":"eq","value":"\u0000"}]}`, "rules.0.value"},
		{"campaign PUT", "PUT", "/api/v1/campaigns/" + camp, `{"name":"\u0000","direction":"receivable"}`, "name"},
		{"definition label", "POST", "/api/v1/transaction-field-definitions", `{"key":"k","label":"\u0000","type":"string"}`, "label"},
		{"assignment", "POST", "/api/v1/transactions/" + rec.TransactionID + "/campaign-assignment", `{"campaign_id":"\u0000"}`, "campaign_id"},
		{"key in other case", "POST", "/api/v1/receivables", `{` + c + `,"AMOUNT":5}`, "AMOUNT"},
		{"key in other case alone", "POST", "/api/v1/campaigns", `{"Name":"C","direction":"receivable"}`, "Name"},
		{"key twice", "POST", "/api/v1/receivables", `{` + c + `,"amount":5}`, "amount"},
		{"nested key twice", "POST", "/api/v1/campaigns", `{"name":"C","direction":"receivable","steps":[{"delay_hours":1,"message":"a","message":"b"}]}`, "steps.0.message"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { f.fieldProblem(t, tt.method, tt.path, tt.body, tt.field) })
	}
}

// TestCreateRefusesReadOnlyFields: on POST the resource's read-only fields
// (id, status, timestamps, ...) are unknown fields (422 naming them), as on
// POST /contacts; PUT keeps ignoring them (contract section 2).
func TestCreateRefusesReadOnlyFields(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	c := `"contact_id":"` + f.contact + `","amount":100`
	for _, path := range []string{"receivables", "payables"} {
		for _, field := range []string{"id", "transaction_id", "status", "campaign_id", "created_at", "updated_at", "paid_at", "payment_link_url"} {
			f.fieldProblem(t, "POST", "/api/v1/"+path, `{`+c+`,"`+field+`":"01JD6S8Q3X5V2N4M7K9P0R1T2W"}`, field)
		}
	}
	for _, field := range []string{"id", "created_at", "updated_at"} {
		f.fieldProblem(t, "POST", "/api/v1/campaigns", `{"name":"C","direction":"receivable","`+field+`":"x"}`, field)
		f.fieldProblem(t, "POST", "/api/v1/transaction-field-definitions", `{"key":"k","label":"K","type":"string","`+field+`":"x"}`, field)
	}
	rec := f.create(t, "receivables", "")
	r := f.do(t, "PUT", "/api/v1/receivables/"+rec.ID, `{`+c+`,"id":"X","status":"paid","created_at":"x"}`)
	expect(t, r, http.StatusOK, "")
	var got one
	r.JSON(t, &got)
	if diff := cmp.Diff([]string{rec.ID, rec.Status}, []string{got.Data.ID, got.Data.Status}); diff != "" {
		t.Errorf("PUT changed read-only fields (-want +got):\n%s", diff)
	}
	camp := f.campaign(t, `{"name":"C","direction":"receivable"}`, false)
	expect(t, f.do(t, "PUT", "/api/v1/campaigns/"+camp, `{"name":"C2","direction":"receivable","id":"X","created_at":"x"}`), http.StatusOK, "")
}

// TestBulkCreateHostileRows: a chunk row holding a NUL, a repeated or
// case-variant key or a read-only field is that row's error; the other
// rows are written.
func TestBulkCreateHostileRows(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	c := `"contact_id":"` + f.contact + `","amount":100`
	rows := f.bulk(t, "receivables", bulkRequest("B1", "",
		`{`+c+`}`,
		`{`+c+`,"description":"\u0000"}`,
		`{"contact":{"external_id":"n1","first_name":"A\u0000","phone":"+14155550199"},"amount":100}`,
		`{`+c+`,"Amount":5}`,
		`{`+c+`,"amount":5}`,
		`{`+c+`,"id":"X"}`,
	))
	want := []map[string][]string{
		nil,
		{"description": {"The description field must not contain the NUL character."}},
		{"contact.first_name": {"The contact.first_name field must not contain the NUL character."}},
		{"Amount": {"The Amount field is not allowed."}},
		{"amount": {"The amount field appears more than once."}},
		{"id": {"The id field is not allowed."}},
	}
	if len(rows) != len(want) {
		t.Fatalf("rows = %+v", rows)
	}
	for i, r := range rows {
		if diff := cmp.Diff(want[i], r.Errors); diff != "" {
			t.Errorf("row %d errors (-want +got):\n%s", i, diff)
		}
	}
	if rows[0].Action != "created" {
		t.Errorf("row 0 action = %q, want created", rows[0].Action)
	}
}

// TestHostileQueries: a list filter holding %00 or bytes that are not UTF-8
// is 422 naming the parameter; such a path id is 404; never a 500.
func TestHostileQueries(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.create(t, "receivables", "")
	for _, list := range []string{"receivables", "payables"} {
		for _, p := range []string{"contact_id", "campaign_id", "external_id", "status", "created_since"} {
			for _, v := range []string{"%00", "x%FF"} {
				f.fieldProblem(t, "GET", "/api/v1/"+list+"?"+p+"="+v, "", p)
			}
		}
		for _, path := range []string{"/api/v1/" + list + "/%00", "/api/v1/" + list + "/%FF"} {
			expect(t, f.do(t, "GET", path, ""), http.StatusNotFound, "")
		}
	}
	f.fieldProblem(t, "GET", "/internal/v1/campaigns/steps?direction=receivable&campaign_id=%00", "", "campaign_id")
	for _, path := range []string{"/api/v1/campaigns/%00", "/api/v1/transaction-field-definitions/%FF"} {
		expect(t, f.do(t, "GET", path, ""), http.StatusNotFound, "")
	}
	expect(t, f.do(t, "POST", "/api/v1/transactions/%00/campaign-assignment", `{"campaign_id":"x"}`), http.StatusNotFound, "")
}
