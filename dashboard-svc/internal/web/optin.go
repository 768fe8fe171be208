package web

import "github.com/gofiber/fiber/v2"

// OptIn is what the dashboard asks optin-svc (optin-svc/client), with the
// signed-in user's internal token.
type OptIn interface{}

// optinRoutes are the opt-in codes, consents and suppression list pages.
func (a *App) optinRoutes(in fiber.Router) { _ = in }
