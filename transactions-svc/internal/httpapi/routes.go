// Package httpapi is transactions-svc's JSON API under /api/v1: receivables
// and payables with their lifecycle actions, transaction field definitions,
// campaigns and campaign assignment, each route behind its ability (spec
// section 4) and, for writes, the Idempotency-Key middleware. Handlers
// decode, call a use case and render; errors.go maps use-case errors once.
package httpapi

import (
	"log/slog"

	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/transactions-svc/internal/app"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// MaxBody is the request body cap of the service's HTTP app: a bulk-create
// chunk of a batch (at most 500 items of a batch of at most 5 MB) with its
// envelope. The public limits (1 MB; 5 MB for batch submissions) are the
// gateway's, which every public request passes first.
const MaxBody = 6 << 20

// Deps are what the routes need.
type Deps struct {
	App *app.App
	// Verifier checks the internal JWT of every request.
	Verifier *authz.Verifier
	// Pool holds the idempotency keys (the app pool).
	Pool *pgxpool.Pool
	// Log receives what a provider webhook could not apply.
	Log *slog.Logger
}

// Handlers serve the routes.
type Handlers struct {
	app *app.App
	log *slog.Logger
}

// Register mounts the API on r.
func Register(r fiber.Router, d Deps) {
	log := d.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &Handlers{app: d.App, log: log}
	api := r.Group("/api/v1", authz.Middleware(d.Verifier))
	idem := func(h idempotency.Handler) fiber.Handler { return idempotency.Wrap(d.Pool, h) }
	h.items(api, idem, txn.Receivable, "/receivables")
	h.items(api, idem, txn.Payable, "/payables")
	h.definitions(api, idem)
	h.campaigns(api, idem)
	api.Post("/transactions/:transaction/campaign-assignment", authz.Require("api:assign-campaign"), idem(h.assignCampaign))
	h.paymentRails(r, api, idem)
	h.internalRoutes(r, d.Verifier, idem)
}

// items mounts the routes of one direction.
func (h *Handlers) items(api fiber.Router, idem func(idempotency.Handler) fiber.Handler, d txn.Direction, path string) {
	res := string(d)
	g := api.Group(path)
	g.Get("/", authz.Require("api:view-any-"+res), h.list(d))
	g.Post("/", authz.Require("api:create-"+res), idem(h.create(d)))
	g.Get("/:id", authz.Require("api:view-"+res), h.show(d))
	g.Put("/:id", authz.Require("api:update-"+res), idem(h.replace(d)))
	g.Delete("/:id", authz.Require("api:delete-"+res), h.remove(d))
	g.Post("/:id/cancel", authz.Require("api:delete-"+res), idem(h.action(d, h.app.Cancel)))
	g.Post("/:id/resend-notification", authz.Require("api:resend-transaction"), idem(h.action(d, h.app.Resend)))
	g.Post("/:id/revoke-link", authz.Require("api:update-transaction"), idem(h.action(d, h.app.RevokeLink)))
	g.Post("/:id/expire", authz.Require("api:update-transaction"), idem(h.action(d, h.app.Expire)))
	update := authz.Require("api:update-transaction")
	if d == txn.Payable {
		g.Post("/:id/mark-disbursed", update, idem(h.settle(d)))
		g.Post("/:id/retry-disbursement", update, idem(h.action(d, direct(h.app.RetryDisbursement))))
		g.Post("/:id/verify-identity", update, idem(h.action(d, direct(h.app.VerifyIdentity))))
		return
	}
	g.Post("/:id/mark-paid", update, idem(h.settle(d)))
	g.Post("/:id/retry-payment", update, idem(h.action(d, direct(h.app.RetryPayment))))
	g.Post("/:id/verify-payer", update, idem(h.action(d, direct(h.app.VerifyPayer))))
}

// definitions mounts /transaction-field-definitions.
func (h *Handlers) definitions(api fiber.Router, idem func(idempotency.Handler) fiber.Handler) {
	const res = "transaction-field-definition"
	g := api.Group("/transaction-field-definitions")
	g.Get("/", authz.Require("api:view-any-"+res), h.listDefinitions)
	g.Post("/", authz.Require("api:create-"+res), idem(h.createDefinition))
	g.Get("/:id", authz.Require("api:view-"+res), h.showDefinition)
	g.Put("/:id", authz.Require("api:update-"+res), idem(h.replaceDefinition))
	g.Delete("/:id", authz.Require("api:delete-"+res), h.deleteDefinition)
}

// campaigns mounts /campaigns.
func (h *Handlers) campaigns(api fiber.Router, idem func(idempotency.Handler) fiber.Handler) {
	g := api.Group("/campaigns")
	g.Get("/", authz.Require("api:view-any-campaign"), h.listCampaigns)
	g.Post("/", authz.Require("api:create-campaign"), idem(h.createCampaign))
	g.Get("/:id", authz.Require("api:view-campaign"), h.showCampaign)
	g.Put("/:id", authz.Require("api:update-campaign"), idem(h.replaceCampaign))
	g.Delete("/:id", authz.Require("api:delete-campaign"), h.deleteCampaign)
	g.Post("/:id/publish", authz.Require("api:update-campaign"), idem(h.publishCampaign))
}
