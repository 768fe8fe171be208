package httpapi_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type page struct {
	Data  []item `json:"data"`
	Links struct {
		First string  `json:"first"`
		Next  *string `json:"next"`
	} `json:"links"`
	Meta struct {
		CurrentPage int `json:"current_page"`
		PerPage     int `json:"per_page"`
		Total       int `json:"total"`
		LastPage    int `json:"last_page"`
	} `json:"meta"`
}

func TestListFiltersAndPages(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	other := f.env.Contact(t, f.tenant, "cust-2", "Bob", "+14155550124")
	var made []item
	for i := range 4 {
		body := fmt.Sprintf(`{"contact_id":%q,"amount":%d,"external_id":"INV-%d"}`, f.contact, 100+i, i%2)
		if i == 3 {
			body = fmt.Sprintf(`{"contact_id":%q,"amount":500}`, other.ID)
		}
		r := f.do(t, http.MethodPost, "/api/v1/receivables", body)
		expect(t, r, http.StatusCreated, "")
		var o one
		r.JSON(t, &o)
		made = append(made, o.Data)
		f.env.Clock.Advance(1e9)
	}
	expect(t, f.action(t, "receivables", made[0].ID, "cancel", ""), http.StatusOK, "")
	tests := []struct {
		query string
		want  []int
	}{
		{"", []int{3, 2, 1, 0}},
		{"?status=cancelled", []int{0}},
		{"?status=pending&contact_id=" + f.contact, []int{2, 1}},
		{"?external_id=INV-1", []int{1}},
		{"?created_since=2026-11-22T01:21:19Z", []int{3, 2}},
		{"?campaign_id=01JD3X0Q4Z8W2E5R7T9Y1V3K5M", nil},
	}
	for _, tt := range tests {
		r := f.do(t, http.MethodGet, "/api/v1/receivables"+tt.query, "")
		expect(t, r, http.StatusOK, "")
		var p page
		r.JSON(t, &p)
		var got, want []string
		for _, it := range p.Data {
			got = append(got, it.ID)
		}
		for _, i := range tt.want {
			want = append(want, made[i].ID)
		}
		if diff := cmp.Diff(want, got); diff != "" || p.Meta.Total != len(tt.want) {
			t.Errorf("%s (-want +got):\n%s (total %d)", tt.query, diff, p.Meta.Total)
		}
	}
	r := f.do(t, http.MethodGet, "/api/v1/receivables?per_page=3&status=pending", "")
	var p page
	r.JSON(t, &p)
	if p.Meta.PerPage != 3 || p.Meta.Total != 3 || p.Meta.LastPage != 1 || p.Links.Next != nil || len(p.Data) != 3 {
		t.Errorf("page %+v", p.Meta)
	}
	r = f.do(t, http.MethodGet, "/api/v1/receivables?per_page=2", "")
	r.JSON(t, &p)
	if p.Meta.LastPage != 2 || p.Links.Next == nil || *p.Links.Next != "http://example.com/api/v1/receivables?page=2&per_page=2" {
		t.Errorf("links %+v meta %+v", p.Links, p.Meta)
	}
	expect(t, f.do(t, http.MethodGet, "/api/v1/receivables?status=disbursed", ""), http.StatusUnprocessableEntity, "validation_failed")
	expect(t, f.do(t, http.MethodGet, "/api/v1/receivables?created_since=yesterday", ""), http.StatusUnprocessableEntity, "validation_failed")
	expect(t, f.do(t, http.MethodGet, "/api/v1/receivables?per_page=0", ""), http.StatusUnprocessableEntity, "validation_failed")
}
