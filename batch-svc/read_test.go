package batchsvc_test

import (
	"net/http"
	"testing"

	"github.com/paylane/paylane/batch-svc/internal/testenv"
	"github.com/paylane/paylane/libs/authz"
)

func TestReadBatches(t *testing.T) {
	t.Parallel()
	svc := testenv.Start(t, nil)
	limits := authz.Limits{BatchesInFlight: 10}
	tok := svc.Token(t, tenantA, limits, "api:create-contact", "api:view-any-contact")
	var env struct{ Data testenv.Header }
	svc.Do(t, http.MethodPost, "/api/v1/contacts/batch", tok, `{"items":[{"phone":"+14155550100"}]}`).JSON(t, &env)
	id := env.Data.ID
	svc.WaitFor(t, tok, id, testenv.Header.Final)

	for _, tt := range []struct {
		name, path, token string
		status            int
		code              string
	}{
		{"show", "/api/v1/batches/" + id, tok, 200, ""},
		{"errors", "/api/v1/batches/" + id + "/errors", tok, 200, ""},
		{"list", "/api/v1/batches", tok, 200, ""},
		{"list by type", "/api/v1/batches?type=contacts&status=completed", tok, 200, ""},
		{"another tenant's batch", "/api/v1/batches/" + id, svc.Token(t, tenantB, limits, "api:view-any-contact"), 404, "resource_not_found"},
		{"another tenant's errors", "/api/v1/batches/" + id + "/errors", svc.Token(t, tenantB, limits, "api:view-any-contact"), 404, "resource_not_found"},
		{"unknown batch", "/api/v1/batches/01HZX3K5Q8V9W2Y4Z6A7B8C9DE", tok, 404, "resource_not_found"},
		{"show without view-any of its type", "/api/v1/batches/" + id, svc.Token(t, tenantA, limits, "api:view-any-receivable", "api:view-contact"), 403, "forbidden"},
		{"errors without view-any", "/api/v1/batches/" + id + "/errors", svc.Token(t, tenantA, limits, "api:view-any-payable"), 403, "forbidden"},
		{"list without any view-any", "/api/v1/batches", svc.Token(t, tenantA, limits, "api:create-contact"), 403, "forbidden"},
		{"list of a type not viewable", "/api/v1/batches?type=contacts", svc.Token(t, tenantA, limits, "api:view-any-receivable"), 403, "forbidden"},
		{"unknown type", "/api/v1/batches?type=invoices", tok, 422, "validation_failed"},
		{"unknown status", "/api/v1/batches?status=done", tok, 422, "validation_failed"},
		{"bad per_page", "/api/v1/batches?per_page=0", tok, 422, "validation_failed"},
		{"type holding NUL", "/api/v1/batches?type=%00", tok, 422, "validation_failed"},
		{"status that is not UTF-8", "/api/v1/batches?status=%FF", tok, 422, "validation_failed"},
		{"id holding NUL", "/api/v1/batches/%00", tok, 404, "resource_not_found"},
		{"errors of an id that is not UTF-8", "/api/v1/batches/%FF/errors", tok, 404, "resource_not_found"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := svc.Do(t, http.MethodGet, tt.path, tt.token, nil)
			if r.Status != tt.status || r.Code() != tt.code {
				t.Errorf("GET %s = %d %s, want %d %s", tt.path, r.Status, r.Body, tt.status, tt.code)
			}
		})
	}

	// Without type, only the types the token may view.
	var list struct {
		Data []testenv.Header
		Meta struct{ PerPage, Total int } `json:"meta"`
	}
	svc.Do(t, http.MethodGet, "/api/v1/batches", svc.Token(t, tenantA, limits, "api:view-any-receivable"), nil).JSON(t, &list)
	if len(list.Data) != 0 || list.Meta.Total != 0 {
		t.Errorf("receivables viewer sees %+v", list)
	}
	svc.Do(t, http.MethodGet, "/api/v1/batches", tok, nil).JSON(t, &list)
	if len(list.Data) != 1 || list.Data[0].ID != id || list.Meta.Total != 1 {
		t.Errorf("contacts viewer sees %+v", list)
	}
	var raw struct {
		Meta struct {
			PerPage int `json:"per_page"`
		} `json:"meta"`
	}
	svc.Do(t, http.MethodGet, "/api/v1/batches", tok, nil).JSON(t, &raw)
	if raw.Meta.PerPage != 15 {
		t.Errorf("default per_page = %d, want 15", raw.Meta.PerPage)
	}
	svc.Do(t, http.MethodGet, "/api/v1/batches/"+id+"/errors", tok, nil).JSON(t, &raw)
	if raw.Meta.PerPage != 25 {
		t.Errorf("default per_page of errors = %d, want 25", raw.Meta.PerPage)
	}
	svc.Do(t, http.MethodGet, "/api/v1/batches?status=queued", tok, nil).JSON(t, &list)
	if len(list.Data) != 0 {
		t.Errorf("status=queued lists %+v", list.Data)
	}
}
