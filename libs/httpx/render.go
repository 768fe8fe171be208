package httpx

import (
	"github.com/gofiber/fiber/v2"
)

// dataEnvelope is the body of every single-resource response.
type dataEnvelope struct {
	Data any `json:"data"`
}

// Data answers {"data": v} with the given status.
func Data(c *fiber.Ctx, status int, v any) error {
	return c.Status(status).JSON(dataEnvelope{Data: v})
}

// NoContent answers 204 with no body.
func NoContent(c *fiber.Ctx) error {
	c.Status(fiber.StatusNoContent)
	c.Response().ResetBody()
	return nil
}
