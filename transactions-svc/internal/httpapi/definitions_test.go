package httpapi_test

import (
	"net/http"
	"testing"
)

func TestFieldDefinitionsAndCustomFields(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	const base = "/api/v1/transaction-field-definitions"
	r := f.do(t, http.MethodPost, base, `{"key":"tier","label":"Tier","type":"enum","options":["gold","silver"],"required":true}`)
	expect(t, r, http.StatusCreated, "")
	var d struct {
		Data struct {
			ID      string   `json:"id"`
			Options []string `json:"options"`
		} `json:"data"`
	}
	r.JSON(t, &d)
	expect(t, f.do(t, http.MethodPost, base, `{"key":"tier","label":"Again","type":"string"}`), http.StatusUnprocessableEntity, "validation_failed")
	expect(t, f.do(t, http.MethodPost, base, `{"key":"Bad Key","label":"x","type":"string"}`), http.StatusUnprocessableEntity, "validation_failed")
	expect(t, f.do(t, http.MethodPost, base, `{"key":"n","label":"x","type":"money"}`), http.StatusUnprocessableEntity, "validation_failed")
	expect(t, f.do(t, http.MethodPost, base, `{"key":"when","label":"When","type":"date"}`), http.StatusCreated, "")

	c := `{"contact_id":"` + f.contact + `","amount":100`
	expect(t, f.do(t, http.MethodPost, "/api/v1/receivables", c+`}`), http.StatusUnprocessableEntity, "validation_failed")
	expect(t, f.do(t, http.MethodPost, "/api/v1/receivables", c+`,"custom_fields":{"tier":"bronze"}}`), http.StatusUnprocessableEntity, "validation_failed")
	expect(t, f.do(t, http.MethodPost, "/api/v1/receivables", c+`,"custom_fields":{"tier":"gold","when":"soon"}}`), http.StatusUnprocessableEntity, "validation_failed")
	r = f.do(t, http.MethodPost, "/api/v1/receivables", c+`,"custom_fields":{"tier":"gold","when":"2026-12-01"}}`)
	expect(t, r, http.StatusCreated, "")

	expect(t, f.do(t, http.MethodPut, base+"/"+d.Data.ID, `{"key":"level","label":"Tier"}`), http.StatusUnprocessableEntity, "validation_failed")
	expect(t, f.do(t, http.MethodPut, base+"/"+d.Data.ID, `{"type":"string","label":"Tier"}`), http.StatusUnprocessableEntity, "validation_failed")
	r = f.do(t, http.MethodPut, base+"/"+d.Data.ID, `{"key":"tier","type":"enum","label":"Level","options":["gold","silver","bronze"]}`)
	expect(t, r, http.StatusOK, "")
	expect(t, f.do(t, http.MethodPost, "/api/v1/receivables", c+`,"custom_fields":{"tier":"bronze"}}`), http.StatusCreated, "")

	var list struct {
		Meta struct {
			Total int `json:"total"`
		} `json:"meta"`
	}
	f.do(t, http.MethodGet, base, "").JSON(t, &list)
	if list.Meta.Total != 2 {
		t.Fatalf("total %d", list.Meta.Total)
	}
	expect(t, f.do(t, http.MethodGet, base+"/"+d.Data.ID, ""), http.StatusOK, "")
	expect(t, f.env.Do(t, http.MethodGet, base+"/"+d.Data.ID, f.env.Token(t, "01J0OTHERTENANT00000000000"), ""), http.StatusNotFound, "resource_not_found")
	expect(t, f.do(t, http.MethodDelete, base+"/"+d.Data.ID, ""), http.StatusNoContent, "")
	expect(t, f.do(t, http.MethodGet, base+"/"+d.Data.ID, ""), http.StatusNotFound, "resource_not_found")
	expect(t, f.do(t, http.MethodPost, "/api/v1/receivables", c+`,"custom_fields":{"tier":"gold"}}`), http.StatusUnprocessableEntity, "validation_failed")
}
