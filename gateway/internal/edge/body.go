package edge

import (
	"encoding/json"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/httpx"
)

// checkBody refuses a request with a Content-Encoding (415, whatever the
// route: a compressed body's size says nothing of what it inflates to, and
// Fiber inflates it with no cap in the service), then enforces the body
// limit of the path (1 MB, 5 MB on /batch) and, for POST, PUT and PATCH
// with a JSON body, that the body is valid JSON. A body with another media
// type (a form post of a hosted page or of the SMS provider) is left to the
// service.
func checkBody(c *fiber.Ctx) error {
	if err := httpx.CheckEncoding(c); err != nil {
		return err
	}
	body := c.Request().Body()
	batch := isBatch(c.Path())
	limit := MaxBody
	if batch {
		limit = MaxBatchBody
	}
	if len(body) > limit {
		return tooLarge(batch)
	}
	switch c.Method() {
	case fiber.MethodPost, fiber.MethodPut, fiber.MethodPatch:
	default:
		return nil
	}
	if len(body) == 0 || !jsonBody(c) || json.Valid(body) {
		return nil
	}
	return apierr.BadRequest("The request body is not valid JSON.")
}

// jsonBody reports whether the body is meant as JSON: no Content-Type, or
// application/json or a +json type.
func jsonBody(c *fiber.Ctx) bool {
	ct := c.Get(fiber.HeaderContentType)
	if ct == "" {
		return true
	}
	mediaType, _, _ := strings.Cut(ct, ";")
	mediaType = strings.ToLower(strings.TrimSpace(mediaType))
	return mediaType == fiber.MIMEApplicationJSON || strings.HasSuffix(mediaType, "+json")
}
