package edge

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/gateway/internal/tokens"
	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/libs/ratelimit"
	"github.com/paylane/paylane/libs/reqid"
)

// Rate-limit response headers (spec section 8).
const (
	HeaderLimit     = "X-RateLimit-Limit"
	HeaderRemaining = "X-RateLimit-Remaining"
)

// authenticate resolves the bearer token. A missing or refused token is 401
// and counts against the client IP's limit (429 once that is spent); an
// identity-svc that cannot answer is 503.
func (p *public) authenticate(c *fiber.Ctx) (*tokens.Resolved, error) {
	token, ok := tokens.Bearer(c.Get(fiber.HeaderAuthorization))
	if !ok {
		return nil, p.refuse(c)
	}
	intro, err := p.cfg.Resolver.Resolve(c.UserContext(), token, reqid.From(c.UserContext()))
	switch {
	case err == nil:
		obs.SetTenant(c, intro.TenantID)
		return intro, nil
	case errors.Is(err, tokens.ErrInvalid):
		return nil, p.refuse(c)
	default:
		p.log.WarnContext(c.UserContext(), "token introspection failed",
			"request_id", reqid.From(c.UserContext()), "error", err.Error())
		return nil, unavailable()
	}
}

func (p *public) refuse(c *fiber.Ctx) error {
	if err := p.limit(c, "ip:"+c.IP(), p.cfg.Limits.IP); err != nil {
		return err
	}
	return apierr.Unauthenticated()
}

// limitToken applies the token's limit: the tenant's own figure when an
// operator set one, else the deployment default.
func (p *public) limitToken(c *fiber.Ctx, intro *tokens.Resolved) error {
	perMinute := p.cfg.Limits.Token
	if intro.Limits.APIRequestsPerMinute > 0 {
		perMinute = intro.Limits.APIRequestsPerMinute
	}
	return p.limit(c, "token:"+strconv.FormatInt(intro.TokenID, 10), perMinute)
}

// budget is one rate limit a request counts against.
type budget struct {
	key       string
	perMinute int
}

// limit counts the request against key, sets the X-RateLimit-* headers and
// refuses it with 429 and Retry-After once the limit is spent.
func (p *public) limit(c *fiber.Ctx, key string, perMinute int) error {
	return p.limits(c, budget{key, perMinute})
}

// limits counts the request against each budget in turn and refuses it
// with 429 and Retry-After at the first one spent (the later ones are not
// counted). The X-RateLimit-* headers are those of the refusing budget, else
// of the one with the fewest requests left: the limit a client will meet
// first. A limiter that fails (Redis down) lets the request through: the
// limits protect the platform, an outage of their store must not take the
// API down.
func (p *public) limits(c *fiber.Ctx, budgets ...budget) error {
	var shown *ratelimit.Result
	for _, b := range budgets {
		res, err := p.cfg.Limiter.Allow(c.UserContext(), "gateway:"+b.key, b.perMinute)
		if err != nil {
			p.log.WarnContext(c.UserContext(), "rate limiter failed, request let through",
				"request_id", reqid.From(c.UserContext()), "error", err.Error())
			continue
		}
		if shown == nil || !res.Allowed || res.Remaining < shown.Remaining {
			shown = &res
		}
		if !res.Allowed {
			break
		}
	}
	if shown == nil {
		return nil
	}
	c.Set(HeaderLimit, strconv.Itoa(shown.Limit))
	c.Set(HeaderRemaining, strconv.Itoa(max(shown.Remaining, 0)))
	if shown.Allowed {
		return nil
	}
	e := apierr.New(http.StatusTooManyRequests, apierr.CodeRateLimited, "Too many requests.")
	e.RetryAfter = shown.RetryAfterSeconds()
	return e
}
