package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/paylane/paylane/libs/apierr"
)

// Contact writes validate custom fields with the tenant's definitions,
// which contacts-svc caches: every definition write must apply to the very
// next contact write of the replica.
func TestDefinitionWritesApplyToTheNextContactWrite(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tok := e.token(t, tenantA, all()...)
	create := func(custom string, header map[string]string) result {
		return e.do(t, request{method: "POST", path: "/api/v1/contacts", token: tok, header: header,
			body: `{"phone":"` + e.phone() + `","custom_fields":` + custom + `}`})
	}
	const tier = "custom_fields.tier"
	// Read (and cached) before tier exists.
	checkResult(t, create(`{"tier":"gold"}`, nil), 422, apierr.CodeValidationFailed, tier)

	def := e.define(t, `{"key":"tier","label":"Tier","type":"enum","options":["gold","silver"]}`)
	if r := create(`{"tier":"gold"}`, nil); r.status != http.StatusCreated {
		t.Fatalf("after defining tier: %d %s", r.status, r.body)
	}
	checkResult(t, create(`{"tier":"bronze"}`, nil), 422, apierr.CodeValidationFailed, tier)
	// Another tenant's definitions are its own.
	other := e.do(t, request{method: "POST", path: "/api/v1/contacts", token: e.token(t, tenantB, all()...),
		body: `{"phone":"` + e.phone() + `","custom_fields":{"tier":"gold"}}`})
	checkResult(t, other, 422, apierr.CodeValidationFailed, tier)

	// A replacement under an Idempotency-Key commits with the stored response.
	put := e.do(t, request{method: "PUT", path: "/api/v1/contact-field-definitions/" + def.ID, token: tok,
		body: `{"label":"Tier","options":["gold","silver","bronze"],"required":true}`, header: keyed("put-tier")})
	if put.status != http.StatusOK {
		t.Fatalf("replacing tier: %d %s", put.status, put.body)
	}
	checkResult(t, create(`{}`, keyed("required")), 422, apierr.CodeValidationFailed, tier)
	if r := create(`{"tier":"bronze"}`, nil); r.status != http.StatusCreated {
		t.Fatalf("after adding bronze: %d %s", r.status, r.body)
	}

	del := e.do(t, request{method: "DELETE", path: "/api/v1/contact-field-definitions/" + def.ID, token: tok})
	if del.status != http.StatusNoContent {
		t.Fatalf("deleting tier: %d %s", del.status, del.body)
	}
	checkResult(t, create(`{"tier":"gold"}`, nil), 422, apierr.CodeValidationFailed, tier)
	if r := create(`{}`, nil); r.status != http.StatusCreated {
		t.Fatalf("after deleting tier: %d %s", r.status, r.body)
	}
}

// A 4xx found after the write's first statement went out (an external id
// held by a live contact) is stored with the key, and nothing of the write
// stays: the phone number is free for the next contact.
func TestIdempotentRefusalAfterTheWriteStartedIsStoredAndUndone(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tok := e.token(t, tenantA, all()...)
	e.create(t, tenantA, `{"phone":"`+e.phone()+`","external_id":"crm-1"}`)
	free := e.phone()
	body := `{"phone":"` + free + `","external_id":"crm-1"}`
	first := e.do(t, request{method: "POST", path: "/api/v1/contacts", token: tok, body: body, header: keyed("taken")})
	checkResult(t, first, 422, apierr.CodeValidationFailed, "external_id")
	if _, _, details := first.envelope(); details["phone"] != nil {
		t.Errorf("the free phone is reported taken: %s", first.body)
	}
	replay := e.do(t, request{method: "POST", path: "/api/v1/contacts", token: tok, body: body, header: keyed("taken")})
	if replay.status != 422 || string(replay.body) != string(first.body) || replay.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("replay = %d %s %v", replay.status, replay.body, replay.header)
	}
	if n := e.total(t); n != 1 {
		t.Errorf("contacts = %d, want 1", n)
	}
	c := e.create(t, tenantA, `{"phone":"`+free+`","external_id":"crm-2"}`)
	if c.Phone != free || c.PhoneID == "" {
		t.Errorf("contact with the freed phone = %+v", c)
	}
}
