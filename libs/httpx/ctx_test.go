package httpx_test

import (
	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/reqid"
)

func requestIDFromContext(c *fiber.Ctx) string { return reqid.From(c.UserContext()) }
