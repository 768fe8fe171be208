package web

import "github.com/gofiber/fiber/v2"

// Batches is what the dashboard asks batch-svc (batch-svc/client), with the
// signed-in user's internal token.
type Batches interface{}

// batchRoutes are the batches pages (list, detail with row errors).
func (a *App) batchRoutes(in fiber.Router) { _ = in }
