package app

import (
	"context"
	"slices"
	"strings"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/webhook-svc/internal/store"
	"github.com/paylane/paylane/webhook-svc/internal/webhook"
)

// DeliveryFilter narrows the deliveries list.
type DeliveryFilter struct {
	Status    string
	EventType string
}

// ListDeliveries returns a page of an endpoint's deliveries, newest first,
// each with its attempts, and the total. An unknown status or event type is
// a *webhook.ValidationError.
func (a *App) ListDeliveries(ctx context.Context, tenantID, id string, f DeliveryFilter, p Page) ([]webhook.Delivery, listtotal.Total, error) {
	if err := checkID(id); err != nil {
		return nil, listtotal.Total{}, err
	}
	errs := map[string][]string{}
	if f.Status != "" && !slices.Contains(webhook.Statuses(), f.Status) {
		errs["status"] = []string{"The selected status is invalid; use one of " + strings.Join(webhook.Statuses(), ", ") + "."}
	}
	if f.EventType != "" && !events.IsPublic(f.EventType) {
		errs["event_type"] = []string{"The selected event type is not a known event type."}
	}
	if len(errs) > 0 {
		return nil, listtotal.Total{}, &webhook.ValidationError{Fields: errs}
	}
	var (
		list  []webhook.Delivery
		total listtotal.Total
	)
	err := a.store.Read(ctx, tenantID, func(tx *store.Tx) error {
		if _, err := tx.Endpoint(ctx, id, false); err != nil {
			return err
		}
		var err error
		list, total, err = tx.ListDeliveries(ctx, id, store.DeliveryFilter(f), p.Limit, p.Offset)
		return err
	})
	return list, total, err
}
