package web

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/events"
	webhooks "github.com/paylane/paylane/webhook-svc/client"
)

// deliveryStatuses are the statuses a delivery passes through (contract
// section 9), in the order the filter offers them.
func deliveryStatuses() []string {
	return []string{"pending", "retrying", "succeeded", "failed", "cancelled"}
}

// deliveriesPerPage is the delivery history's page size.
const deliveriesPerPage = 20

// deliveryFilter is the delivery history's query: filters and page.
type deliveryFilter struct {
	Status    string
	EventType string
	Page      int
}

// query renders the filter as a query string for page (filters kept).
func (f deliveryFilter) query(page int) string {
	q := url.Values{}
	if f.Status != "" {
		q.Set("status", f.Status)
	}
	if f.EventType != "" {
		q.Set("event_type", f.EventType)
	}
	if page > 1 {
		q.Set("page", strconv.Itoa(page))
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

// parseDeliveryFilter reads the history's query; a value outside what the
// filter offers is a field message, and the history is not asked for.
func parseDeliveryFilter(c *fiber.Ctx) (deliveryFilter, map[string]string) {
	f := deliveryFilter{Status: c.Query("status"), EventType: c.Query("event_type"), Page: 1}
	errs := map[string]string{}
	if f.Status != "" && !slices.Contains(deliveryStatuses(), f.Status) {
		errs["status"] = "Choose a status from the list."
		f.Status = ""
	}
	if f.EventType != "" && !slices.Contains(events.Catalog(), f.EventType) {
		errs["event_type"] = "Choose an event type from the list."
		f.EventType = ""
	}
	if n, ok := pageNumber(c); ok {
		f.Page = n
	} else {
		errs["page"] = "This page number does not exist."
	}
	if len(errs) == 0 {
		return f, nil
	}
	return f, errs
}

// deliveryRow is a delivery as the history shows it.
type deliveryRow struct {
	webhooks.Delivery
	Created   string
	Delivered string
	Next      string
}

// endpointView is an endpoint as its page shows it.
type endpointView struct {
	webhooks.Endpoint
	LastSucceeded string
	LastFailed    string
	Disabled      string
	Created       string
}

type webhookData struct {
	Endpoint   endpointView
	Deliveries []deliveryRow
	Total      listTotal
	Filter     deliveryFilter
	Statuses   []string
	Events     []string
	PrevURL    string
	NextURL    string
	CanUpdate  bool
	// Refused: the filter was refused, so the history was not read.
	Refused bool
	// Rotated is the endpoint with its new secret, just rotated: shown once.
	Rotated *webhooks.Endpoint
	// Replayed: the rotation was already made by this form; its secret
	// was shown to the first answer only.
	Replayed bool
}

// apiTime renders an API timestamp (RFC 3339) as the pages show dates.
func apiTime(s *string) string {
	if s == nil || *s == "" {
		return "Never"
	}
	t, err := time.Parse(time.RFC3339Nano, *s)
	if err != nil {
		return *s
	}
	return t.UTC().Format("2 Jan 2006, 15:04 UTC")
}

// webhookData reads the endpoint and, unless the filter was refused, a
// page of its delivery history, with the user's internal token.
func (a *App) webhookData(c *fiber.Ctx, id string, f deliveryFilter, history bool) (webhookData, error) {
	token, err := a.userToken(c)
	if err != nil {
		return webhookData{}, err
	}
	e, err := a.webhooks.Endpoint(c.UserContext(), token, id)
	if err != nil {
		return webhookData{}, peerError(err)
	}
	d := webhookData{Filter: f, Statuses: deliveryStatuses(), Events: events.Catalog(),
		CanUpdate: slices.Contains(currentUser(c).Abilities, abilityUpdateWebhook),
		Endpoint: endpointView{Endpoint: *e, LastSucceeded: apiTime(e.LastSucceededAt), LastFailed: apiTime(e.LastFailedAt),
			Disabled: apiTime(e.DisabledAt), Created: apiTime(&e.CreatedAt)}}
	if !history {
		d.Refused = true
		return d, nil
	}
	page, err := a.webhooks.Deliveries(c.UserContext(), token, id, webhooks.DeliveryOptions{Page: f.Page, PerPage: deliveriesPerPage,
		Status: f.Status, EventType: f.EventType})
	if err != nil {
		return webhookData{}, peerError(err)
	}
	for _, x := range page.Data {
		d.Deliveries = append(d.Deliveries, deliveryRow{Delivery: x, Created: apiTime(&x.CreatedAt), Delivered: apiTime(x.DeliveredAt),
			Next: apiTime(x.NextAttemptAt)})
	}
	d.Total = listTotal{page.Meta.Total, page.Meta.TotalIsEstimate}
	base := Base + "/webhooks/" + id
	if f.Page > 1 {
		d.PrevURL = base + f.query(f.Page-1)
	}
	if f.Page < page.Meta.LastPage {
		d.NextURL = base + f.query(f.Page+1)
	}
	return d, nil
}

func webhookNotice(code string) string {
	switch code {
	case "enabled":
		return "The endpoint is active again: new events are delivered to it."
	}
	return ""
}

// webhookPage shows one endpoint: its state and health, and its delivery
// history, newest first.
func (a *App) webhookPage(c *fiber.Ctx) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	f, errs := parseDeliveryFilter(c)
	d, err := a.webhookData(c, id, f, errs == nil)
	if err != nil {
		return err
	}
	if errs != nil {
		c.Status(http.StatusUnprocessableEntity)
	}
	return a.render(c, "webhook", page{Title: d.Endpoint.Name + " · Webhook endpoint", Nav: "webhooks", Data: d, Errors: errs,
		Notice: webhookNotice(c.Query("notice"))})
}

// rotateWebhookSecret gives the endpoint a new signing secret through the
// API's rotate-secret (api:update-webhook) and shows it once. The form's
// Idempotency-Key makes a second submission answer the first rotation,
// which the service replays without the secret.
func (a *App) rotateWebhookSecret(c *fiber.Ctx) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	token, err := a.userToken(c)
	if err != nil {
		return err
	}
	rotated, err := a.webhooks.RotateSecret(c.UserContext(), token, formIdempotencyKey(c), id)
	if err != nil {
		return peerError(err)
	}
	d, err := a.webhookData(c, id, deliveryFilter{Page: 1}, true)
	if err != nil {
		return err
	}
	if rotated.SigningSecret == "" {
		d.Replayed = true
	} else {
		d.Rotated = rotated
	}
	return a.render(c, "webhook", page{Title: d.Endpoint.Name + " · Webhook endpoint", Nav: "webhooks", Data: d})
}

// enableWebhook re-enables an endpoint (turned off, or disabled by Paylane
// after failing) as the API does: PATCH is_active true, which also resets
// its failure count.
func (a *App) enableWebhook(c *fiber.Ctx) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	token, err := a.userToken(c)
	if err != nil {
		return err
	}
	on := true
	_, err = a.webhooks.UpdateEndpoint(c.UserContext(), token, formIdempotencyKey(c), id, webhooks.EndpointPatch{IsActive: &on})
	var e *webhooks.Error
	if errors.As(err, &e) && e.Status == http.StatusUnprocessableEntity {
		d, derr := a.webhookData(c, id, deliveryFilter{Page: 1}, true)
		if derr != nil {
			return derr
		}
		c.Status(http.StatusUnprocessableEntity)
		return a.render(c, "webhook", page{Title: d.Endpoint.Name + " · Webhook endpoint", Nav: "webhooks", Data: d,
			Errors: map[string]string{"form": e.Message}})
	}
	if err != nil {
		return peerError(err)
	}
	return c.Redirect(Base+"/webhooks/"+id+"?notice=enabled", http.StatusSeeOther)
}
