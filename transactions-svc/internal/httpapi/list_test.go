package httpapi_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

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

// TestListByCampaignAndPayables: campaign_id finds the items of a campaign,
// and the payables list filters as the receivables list does.
func TestListByCampaignAndPayables(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	plain := f.create(t, "receivables", "")
	f.env.Clock.Advance(time.Second) // distinct created_at: a stable newest-first order
	camp := f.campaign(t, `{"name":"All","direction":"receivable"}`, true)
	joined := f.create(t, "receivables", "")
	if joined.CampaignID == nil || *joined.CampaignID != camp {
		t.Fatalf("campaign_id %v, want %s", joined.CampaignID, camp)
	}
	payA := f.create(t, "payables", `,"external_id":"PO-1"`)
	f.env.Clock.Advance(time.Second)
	payB := f.create(t, "payables", "")
	expect(t, f.action(t, "payables", payB.ID, "cancel", ""), http.StatusOK, "")
	tests := []struct {
		path string
		want []string
	}{
		{"/api/v1/receivables?campaign_id=" + camp, []string{joined.ID}},
		{"/api/v1/receivables", []string{joined.ID, plain.ID}},
		{"/api/v1/payables?status=cancelled", []string{payB.ID}},
		{"/api/v1/payables?external_id=PO-1", []string{payA.ID}},
		{"/api/v1/payables?contact_id=" + f.contact, []string{payB.ID, payA.ID}},
		{"/api/v1/payables?campaign_id=" + camp, nil},
	}
	for _, tt := range tests {
		r := f.do(t, http.MethodGet, tt.path, "")
		expect(t, r, http.StatusOK, "")
		var p page
		r.JSON(t, &p)
		var got []string
		for _, it := range p.Data {
			got = append(got, it.ID)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" || p.Meta.Total != len(tt.want) {
			t.Errorf("%s (-want +got):\n%s (total %d)", tt.path, diff, p.Meta.Total)
		}
	}
	expect(t, f.do(t, http.MethodGet, "/api/v1/payables?status=paid", ""), http.StatusUnprocessableEntity, "validation_failed")
}

// TestListTotalAboveTheCapIsAnEstimate: with the store's cap at 2, a list
// of 3 receivables or payables reports an estimated total of at least 3
// with meta.total_is_estimate and still returns every item; a filtered
// list of 1 is exact and carries no flag.
func TestListTotalAboveTheCapIsAnEstimate(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.env.Store.ListCap = 2
	for _, path := range []string{"receivables", "payables"} {
		for i := range 3 {
			f.create(t, path, fmt.Sprintf(`,"external_id":"INV-%d"`, i))
		}
		for _, tc := range []struct {
			query     string
			items     int
			estimated bool
		}{
			{"", 3, true},
			{"?external_id=INV-1", 1, false},
		} {
			r := f.do(t, http.MethodGet, "/api/v1/"+path+tc.query, "")
			expect(t, r, http.StatusOK, "")
			var p struct {
				Data []item `json:"data"`
				Meta struct {
					Total           int   `json:"total"`
					TotalIsEstimate *bool `json:"total_is_estimate"`
				} `json:"meta"`
			}
			r.JSON(t, &p)
			estimated := p.Meta.TotalIsEstimate != nil && *p.Meta.TotalIsEstimate
			if len(p.Data) != tc.items || estimated != tc.estimated || (!tc.estimated && p.Meta.TotalIsEstimate != nil) ||
				(estimated && p.Meta.Total < tc.items) || (!estimated && p.Meta.Total != tc.items) {
				t.Errorf("GET %s%s: %d items, meta %+v", path, tc.query, len(p.Data), p.Meta)
			}
		}
	}
}
