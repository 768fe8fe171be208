package edge

import (
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/gateway/internal/proxy"
	"github.com/paylane/paylane/gateway/internal/routing"
	"github.com/paylane/paylane/gateway/internal/tokens"
	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/obs"
)

// kind says how the gateway treats a request once its route is known.
type kind int

const (
	kindHealth   kind = iota // the gateway's own health probe, no token
	kindDocument             // the OpenAPI document, any valid token
	kindAPI                  // forwarded with the internal token
	kindPublic               // forwarded without a token (hosted pages, provider callbacks)
)

// DashboardPrefix is the tenant dashboard's path, forwarded like a hosted
// page but outside every rate limit.
const DashboardPrefix = "/dashboard"

// target is where a request goes.
type target struct {
	kind     kind
	upstream string
	ipLimit  int    // per-IP limit of requests without a token
	limitKey string // "ip", "webhook" or "page-ip"
	linkKey  string // a hosted page's link, limited on its own ("" elsewhere)
}

type public struct {
	cfg      Config
	base     string // the API's path prefix, /api/v1
	health   string
	document string
	log      *slog.Logger
}

// New returns the public edge application.
func New(cfg Config) *fiber.App {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	base := cfg.Table.Base()
	p := &public{
		cfg: cfg, base: base, health: base + "/healthcheck/app", document: base + "/openapi.json", log: cfg.Logger,
	}
	app := newApp(cfg.Logger, cfg.Registry, "gateway", cfg.ReadTimeout, cfg.Tracing)
	app.Use(p.serve)
	onUnknownMethod(app, cfg.Logger, p.serve)
	return app
}

// serve runs the steps in order: route, token, rate limit, body, answer.
func (p *public) serve(c *fiber.Ctx) error {
	t, err := p.route(c)
	if err != nil {
		return err
	}
	var intro *tokens.Resolved
	if t.kind == kindDocument || t.kind == kindAPI {
		if intro, err = p.authenticate(c); err != nil {
			return err
		}
		err = p.limitToken(c, intro)
	} else if t.limitKey != "" {
		budgets := []budget{{t.limitKey + ":" + c.IP(), t.ipLimit}}
		if t.linkKey != "" {
			budgets = append(budgets, budget{t.linkKey, p.cfg.Limits.PageLink})
		}
		if err = p.limits(c, budgets...); err != nil && t.limitKey == pageLimitKey {
			return pageRefusal(c, err)
		}
	}
	if err != nil {
		return err
	}
	if err := checkBody(c); err != nil {
		return err
	}
	switch t.kind {
	case kindHealth:
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
		return c.Status(http.StatusOK).SendString(`{"status":"ok"}`)
	case kindDocument:
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
		return c.Status(http.StatusOK).Send(p.cfg.Document)
	case kindAPI:
		if err := p.bindKey(c, intro, t.upstream); err != nil {
			return err
		}
		return p.forward(c, t.upstream, intro.Authorization)
	default:
		return p.forward(c, t.upstream, "")
	}
}

// route finds the target of a request. Under the API base the OpenAPI
// document decides (404 unknown path, 405 wrong method), then the route
// table; elsewhere only the route table, for prefixes that do not cover the
// API (hosted pages and provider callbacks are never reached through a
// catch-all route).
func (p *public) route(c *fiber.Ctx) (target, error) {
	path := c.Path()
	if !routing.Safe(path) {
		return target{}, apierr.RouteNotFound()
	}
	unauthenticated := target{ipLimit: p.cfg.Limits.IP, limitKey: "ip"}
	if routing.UnderPrefix(path, p.base) {
		pattern, methods, ok := p.cfg.Table.Match(path)
		if !ok {
			return target{}, apierr.RouteNotFound()
		}
		obs.SetRoute(c, pattern)
		if !routing.Allows(methods, c.Method()) {
			e := apierr.New(http.StatusMethodNotAllowed, apierr.CodeMethodNotAllowed, "The method is not allowed for this endpoint.")
			e.Headers = map[string]string{fiber.HeaderAllow: strings.Join(methods, ", ")}
			return target{}, e
		}
		switch path {
		case p.health:
			unauthenticated.kind = kindHealth
			return unauthenticated, nil
		case p.document:
			return target{kind: kindDocument}, nil
		}
		pair, ok := p.cfg.Routes.Match(path)
		if !ok { // documented, but the owning service is not deployed
			return target{}, apierr.RouteNotFound()
		}
		return target{kind: kindAPI, upstream: pair.Upstream}, nil
	}
	pair, pattern, ok := p.cfg.Routes.MatchPattern(path)
	if !ok || routing.UnderPrefix(p.base, pair.Prefix) {
		return target{}, apierr.RouteNotFound()
	}
	obs.SetRoute(c, pattern)
	unauthenticated.kind, unauthenticated.upstream = kindPublic, pair.Upstream
	switch {
	case routing.UnderPrefix(path, "/webhooks"):
		unauthenticated.ipLimit, unauthenticated.limitKey = p.cfg.Limits.Webhook, "webhook"
	case routing.UnderPrefix(path, "/l"):
		unauthenticated.ipLimit, unauthenticated.limitKey = p.cfg.Limits.PageIP, pageLimitKey
		unauthenticated.linkKey = linkKey(path)
	case routing.UnderPrefix(path, DashboardPrefix):
		// Dashboard requests never count against API rate limits (contract
		// section 14): the dashboard's sign-in has its own lockout, and a
		// signed-in user's pages are not API calls.
		unauthenticated.ipLimit, unauthenticated.limitKey = 0, ""
	}
	return unauthenticated, nil
}

// forward sends the request upstream with the given Authorization (empty:
// none) and the X-Forwarded-* headers. A client that accepts an event
// stream (an MCP client) gets the answer streamed as the service writes it.
func (p *public) forward(c *fiber.Ctx, upstream, authorization string) error {
	r := proxy.Request{Upstream: upstream, Authorization: authorization}
	if u := p.cfg.PublicBase; u != nil {
		r.Proto, r.Host = u.Scheme, u.Host
	} else {
		r.Proto, r.Host = requestOrigin(c)
	}
	if proxy.AcceptsEventStream(c) {
		return p.cfg.Forwarder.Stream(c, r)
	}
	return p.cfg.Forwarder.Forward(c, r)
}

// requestOrigin is the scheme and Host the client used. Fiber's Protocol and
// Hostname would believe a client's own X-Forwarded-* headers.
func requestOrigin(c *fiber.Ctx) (proto, host string) {
	proto = "http"
	if c.Context().IsTLS() {
		proto = "https"
	}
	return proto, string(c.Request().Host())
}

// PublicBase parses a public base URL ("" gives nil).
func PublicBase(s string) (*url.URL, error) {
	if s == "" {
		return nil, nil
	}
	return url.Parse(s)
}
