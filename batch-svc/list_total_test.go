package batchsvc_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/paylane/paylane/batch-svc/internal/testenv"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/libs/svcrun"
)

// TestBatchesTotalAboveTheCapIsAnEstimate: with a cap of 2 (the seam of
// listtotal.DefaultCap), a tenant's 3 batches are listed with an estimated
// total of at least 3 and meta.total_is_estimate; a filter matching none
// is exact.
func TestBatchesTotalAboveTheCapIsAnEstimate(t *testing.T) {
	t.Parallel()
	svc := testenv.Start(t, nil, svcrun.WithSeam(listtotal.Cap(2)))
	tok := svc.Token(t, tenantA, authz.Limits{BatchesInFlight: 5, BatchSubmissionsPerMinute: 10},
		"api:create-contact", "api:view-any-contact", "api:view-any-payable")
	for range 3 {
		if r := svc.Do(t, http.MethodPost, "/api/v1/contacts/batch", tok, `{"items":[{"phone":"+14155550100"}]}`); r.Status != http.StatusAccepted {
			t.Fatalf("submission = %d %s", r.Status, r.Body)
		}
	}
	for _, tc := range []struct {
		query     string
		items     int
		estimated bool
	}{
		{"", 3, true},
		{"?type=payables", 0, false},
	} {
		r := svc.Do(t, http.MethodGet, "/api/v1/batches"+tc.query, tok, nil)
		var list struct {
			Data []json.RawMessage `json:"data"`
			Meta struct {
				Total           int   `json:"total"`
				TotalIsEstimate *bool `json:"total_is_estimate"`
			} `json:"meta"`
		}
		r.JSON(t, &list)
		estimated := list.Meta.TotalIsEstimate != nil && *list.Meta.TotalIsEstimate
		if r.Status != http.StatusOK || len(list.Data) != tc.items || estimated != tc.estimated ||
			(!tc.estimated && list.Meta.TotalIsEstimate != nil) ||
			(estimated && list.Meta.Total < tc.items) || (!estimated && list.Meta.Total != tc.items) {
			t.Errorf("batches%s = %d %s", tc.query, r.Status, r.Body)
		}
	}
}
