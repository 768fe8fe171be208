package web

import "github.com/gofiber/fiber/v2"

// Contacts is what the dashboard asks contacts-svc (contacts-svc/client), with the
// signed-in user's internal token.
type Contacts interface{}

// contactRoutes are the contacts pages (search, detail).
func (a *App) contactRoutes(in fiber.Router) { _ = in }
