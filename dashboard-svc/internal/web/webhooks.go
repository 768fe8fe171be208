package web

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/events"
	webhooks "github.com/paylane/paylane/webhook-svc/client"
)

// Webhooks is what the dashboard asks webhook-svc (webhook-svc/client),
// with the signed-in user's internal token.
type Webhooks interface {
	Endpoints(ctx context.Context, token string) ([]webhooks.Endpoint, error)
	CreateEndpoint(ctx context.Context, token, idempotencyKey string, in webhooks.EndpointInput) (*webhooks.Endpoint, error)
	Endpoint(ctx context.Context, token, id string) (*webhooks.Endpoint, error)
	UpdateEndpoint(ctx context.Context, token, idempotencyKey, id string, in webhooks.EndpointPatch) (*webhooks.Endpoint, error)
	RotateSecret(ctx context.Context, token, idempotencyKey, id string) (*webhooks.Endpoint, error)
	Deliveries(ctx context.Context, token, id string, opts webhooks.DeliveryOptions) (*webhooks.DeliveryPage, error)
	RecentFailures(ctx context.Context, token string, limit int) ([]webhooks.Failure, error)
}

type webhooksData struct {
	Endpoints []webhooks.Endpoint
	Events    []string
	Selected  map[string]bool
	CanCreate bool
	// Created is the endpoint just created, with its signing secret: shown once.
	Created *webhooks.Endpoint
	// Replayed: this form had already created its endpoint.
	Replayed bool
}

func (a *App) webhooksData(c *fiber.Ctx) (webhooksData, string, error) {
	u := currentUser(c)
	token, err := a.userToken(c)
	if err != nil {
		return webhooksData{}, "", err
	}
	list, err := a.webhooks.Endpoints(c.UserContext(), token)
	if err != nil {
		return webhooksData{}, "", err
	}
	return webhooksData{Endpoints: list, Events: events.Catalog(), Selected: map[string]bool{},
		CanCreate: slices.Contains(u.Abilities, abilityCreateWebhooks)}, token, nil
}

func (a *App) webhooksPage(c *fiber.Ctx) error {
	d, _, err := a.webhooksData(c)
	if err != nil {
		return err
	}
	return a.render(c, "webhooks", page{Title: "Webhook endpoints", Nav: "webhooks", Data: d})
}

// createWebhook creates an endpoint with webhook-svc's own validation and
// gate (api:create-webhook) and shows its signing secret once.
func (a *App) createWebhook(c *fiber.Ctx) error {
	d, token, err := a.webhooksData(c)
	if err != nil {
		return err
	}
	in := webhooks.EndpointInput{Name: strings.TrimSpace(c.FormValue("name")), URL: strings.TrimSpace(c.FormValue("url"))}
	for _, v := range c.Request().PostArgs().PeekMulti("events") {
		in.SubscribedEvents = append(in.SubscribedEvents, string(v))
		d.Selected[string(v)] = true
	}
	if in.SubscribedEvents == nil {
		in.SubscribedEvents = []string{}
	}
	created, err := a.webhooks.CreateEndpoint(c.UserContext(), token, formIdempotencyKey(c), in)
	var e *webhooks.Error
	switch {
	case errors.As(err, &e) && e.Status == http.StatusForbidden:
		return &pageError{status: http.StatusForbidden}
	case errors.As(err, &e) && e.Status == http.StatusUnprocessableEntity:
		fields, _ := validation(err, nil)
		c.Status(http.StatusUnprocessableEntity)
		return a.render(c, "webhooks", page{Title: "Webhook endpoints", Nav: "webhooks", Data: d, Errors: fields,
			Form: map[string]string{"name": in.Name, "url": in.URL}})
	case err != nil:
		return err
	}
	if created.SigningSecret == "" {
		// The form was sent before: the service answered its first
		// creation (already in the list read above), whose secret only
		// that answer showed.
		d.Replayed, d.Selected = true, map[string]bool{}
		return a.render(c, "webhooks", page{Title: "Webhook endpoints", Nav: "webhooks", Data: d})
	}
	d.Created = created
	d.Endpoints = append([]webhooks.Endpoint{*created}, d.Endpoints...)
	d.Selected = map[string]bool{}
	c.Status(http.StatusCreated)
	return a.render(c, "webhooks", page{Title: "Webhook endpoints", Nav: "webhooks", Data: d})
}

// webhookRoutes are the webhook endpoint pages: the list, and one
// endpoint's detail with its delivery history (webhook.go).
func (a *App) webhookRoutes(in fiber.Router) {
	in.Get("/webhooks", a.requireAbility(abilityViewWebhooks), a.webhooksPage)
	in.Post("/webhooks", a.requireAbility(abilityCreateWebhooks), a.createWebhook)
	in.Get("/webhooks/:id", a.requireAbility(abilityViewWebhook), a.webhookPage)
	in.Post("/webhooks/:id/rotate-secret", a.requireAbility(abilityUpdateWebhook), a.rotateWebhookSecret)
	in.Post("/webhooks/:id/enable", a.requireAbility(abilityUpdateWebhook), a.enableWebhook)
}
