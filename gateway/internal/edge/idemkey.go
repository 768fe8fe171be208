package edge

import (
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/gateway/internal/idemscope"
	"github.com/paylane/paylane/gateway/internal/tokens"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/reqid"
)

// bindKey holds an Idempotency-Key to one service across the whole API
// (contract section 3): the first POST, PUT or PATCH that carries the key
// binds (tenant, key) to the service it is forwarded to, and the same key
// sent to another service's route is 409 idempotency_conflict before it is
// forwarded. Within one service the service's own record decides (replay,
// conflict, in progress), so the binding names the service, not the whole
// fingerprint: a retry after a 5xx or 429 (which no service stores) reaches
// the same service and behaves as the contract says.
//
// A key the service will refuse (longer than 128 characters) binds nothing.
// A store that fails lets the request through, logged: every service still
// guards its own keys.
func (p *public) bindKey(c *fiber.Ctx, intro *tokens.Resolved, upstream string) error {
	if p.cfg.Keys == nil {
		return nil
	}
	switch c.Method() {
	case fiber.MethodPost, fiber.MethodPut, fiber.MethodPatch:
	default:
		return nil
	}
	key := c.Get(idempotency.HeaderKey)
	if key == "" || utf8.RuneCountInString(key) > idempotency.MaxKeyLength {
		return nil
	}
	owner, err := p.cfg.Keys.Bind(c.UserContext(), idemscope.Scope(intro.TenantID, key), upstream)
	if err != nil {
		p.log.WarnContext(c.UserContext(), "idempotency key scope unavailable, request let through",
			"request_id", reqid.From(c.UserContext()), "error", err.Error())
		return nil
	}
	if owner == upstream {
		return nil
	}
	return idempotency.Conflict()
}
