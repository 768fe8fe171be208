package edge

import (
	"crypto/sha256"
	"crypto/subtle"
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/paylane/paylane/gateway/internal/proxy"
	"github.com/paylane/paylane/gateway/internal/routing"
	"github.com/paylane/paylane/gateway/internal/tokens"
	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/obs"
)

// AdminConfig is what the admin plane needs.
type AdminConfig struct {
	Token     string            // the admin token
	Routes    *routing.Prefixes // /admin/v1 prefix → upstream
	Forwarder *proxy.Forwarder
	Registry  prometheus.Registerer // optional
	Logger    *slog.Logger
	// ReadTimeout as in Config.
	ReadTimeout time.Duration
	// Tracing as in Config.
	Tracing *obs.Tracing
}

// NewAdmin returns the admin plane application: every request needs
// Authorization: Bearer <admin token> (401 otherwise), then goes to the
// upstream of its prefix with the Authorization header unchanged (the
// service checks the admin token again).
func NewAdmin(cfg AdminConfig) *fiber.App {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	want := sha256.Sum256([]byte(cfg.Token))
	app := newApp(cfg.Logger, cfg.Registry, "gateway-admin", cfg.ReadTimeout, cfg.Tracing)
	app.Use(func(c *fiber.Ctx) error {
		token, _ := tokens.Bearer(c.Get(fiber.HeaderAuthorization))
		got := sha256.Sum256([]byte(token))
		// Comparing hashes keeps the comparison constant-time whatever the
		// length of what the client sent.
		if cfg.Token == "" || token == "" || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			return apierr.Unauthenticated()
		}
		path := c.Path()
		pair, pattern, ok := cfg.Routes.MatchPattern(path)
		if !routing.Safe(path) || !ok {
			return apierr.RouteNotFound()
		}
		obs.SetRoute(c, pattern)
		if err := checkBody(c); err != nil {
			return err
		}
		proto, host := requestOrigin(c)
		return cfg.Forwarder.Forward(c, proxy.Request{
			Upstream: pair.Upstream, KeepAuthorization: true, Proto: proto, Host: host,
		})
	})
	return app
}
