package webhooksvc_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/webhook-svc/internal/ingest"
	"github.com/paylane/paylane/webhook-svc/internal/store"
	"github.com/paylane/paylane/webhook-svc/internal/testenv"
)

// TestDeliveriesTotalAboveTheCapIsAnEstimate: with a cap of 2 (the seam of
// listtotal.DefaultCap), an endpoint's 3 deliveries are listed with an
// estimated total of at least 3 and meta.total_is_estimate; a filter
// matching none is exact.
func TestDeliveriesTotalAboveTheCapIsAnEstimate(t *testing.T) {
	t.Parallel()
	svc := testenv.StartService(t, testenv.ServiceOptions{ListCap: 2})
	tok := svc.Token(t, tenantA, allAbilities...)
	ep, _ := endpointOf(t, svc.Do(t, http.MethodPost, base, tok, validBody))
	// The consumer's work, done here on the service's database: each
	// contact event becomes a delivery of the endpoint.
	in := ingest.New(store.New(svc.DB.Pool), nil, nil, nil)
	for range 3 {
		env, err := events.New("contact.created", tenantA, "", map[string]string{"id": "C1"})
		if err != nil {
			t.Fatal(err)
		}
		if err := in.Handle(context.Background(), env); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		query     string
		items     int
		estimated bool
	}{
		{"", 3, true},
		{"?event_type=receivable.paid", 0, false},
	} {
		r := svc.Do(t, http.MethodGet, base+"/"+ep.ID+"/deliveries"+tc.query, tok, nil)
		var list struct {
			Data []deliveryJSON `json:"data"`
			Meta struct {
				Total           int   `json:"total"`
				TotalIsEstimate *bool `json:"total_is_estimate"`
			} `json:"meta"`
		}
		r.Decode(t, &list)
		estimated := list.Meta.TotalIsEstimate != nil && *list.Meta.TotalIsEstimate
		if r.Status != http.StatusOK || len(list.Data) != tc.items || estimated != tc.estimated ||
			(!tc.estimated && list.Meta.TotalIsEstimate != nil) ||
			(estimated && list.Meta.Total < tc.items) || (!estimated && list.Meta.Total != tc.items) {
			t.Errorf("deliveries%s = %d %s", tc.query, r.Status, r.Body)
		}
	}
}
