// Package web is the dashboard's HTTP surface: server-rendered pages
// (html/template, embedded templates and CSS, no JavaScript needed),
// sessions in an HttpOnly, Secure, SameSite=Lax cookie, and a CSRF token on
// every form.
package web

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/dashboard-svc/internal/session"
	identity "github.com/paylane/paylane/identity-svc/client"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Identity is what the dashboard asks identity-svc (identity-svc/client).
type Identity interface {
	SignIn(ctx context.Context, email, password string) (*identity.User, error)
	SetPassword(ctx context.Context, linkToken, password string) (*identity.User, error)
	ChangePassword(ctx context.Context, tenantID, userID, current, next string) error
	User(ctx context.Context, tenantID, userID string) (*identity.User, error)
	Users(ctx context.Context, tenantID string, opts identity.ListOptions) (*identity.UserPage, error)
	Roles(ctx context.Context, tenantID string) ([]identity.Role, error)
	CreateUserToken(ctx context.Context, tenantID, userID, name string, abilities []string) (*identity.NewToken, error)
	Tokens(ctx context.Context, tenantID string, opts identity.ListOptions) (*identity.TokenPage, error)
	RevokeToken(ctx context.Context, tenantID string, id int64) error
	UserToken(ctx context.Context, tenantID, userID string) (string, error)
	InviteUser(ctx context.Context, tenantID, actorID string, in identity.UserInput) (*identity.NewUser, error)
	DisableUser(ctx context.Context, tenantID, actorID, userID string) (*identity.User, error)
	CreateRole(ctx context.Context, tenantID, actorID string, r identity.Role) (*identity.Role, error)
	UpdateRole(ctx context.Context, tenantID, actorID string, r identity.Role) (*identity.Role, error)
}

// Sessions is the session store (internal/store).
type Sessions interface {
	Create(ctx context.Context, s session.Session) error
	Get(ctx context.Context, idHash []byte, now time.Time) (session.Session, error)
	Delete(ctx context.Context, idHash []byte) error
	DeleteUser(ctx context.Context, tenantID, userID string, keep []byte) error
}

// Options are the dependencies of the pages.
type Options struct {
	Identity     Identity
	Transactions Transactions
	Webhooks     Webhooks
	Contacts     Contacts
	OptIn        OptIn
	Batches      Batches
	Sessions     Sessions
	Log          *slog.Logger
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Middleware runs before every route (metrics).
	Middleware []fiber.Handler
}

// App serves the dashboard.
type App struct {
	fiber        *fiber.App
	identity     Identity
	transactions Transactions
	webhooks     Webhooks
	contacts     Contacts
	optin        OptIn
	batches      Batches
	sessions     Sessions
	log          *slog.Logger
	now          func() time.Time
	pages        map[string]*template.Template
}

// Base is the path every page lives under.
const Base = "/dashboard"

// maxForm bounds a form body: the pages' forms are small.
const maxForm = 64 << 10

// New builds the app and its routes.
func New(o Options) (*App, error) {
	a := &App{identity: o.Identity, transactions: o.Transactions, webhooks: o.Webhooks,
		contacts: o.Contacts, optin: o.OptIn, batches: o.Batches, sessions: o.Sessions, log: o.Log, now: o.Now}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	if a.now == nil {
		a.now = time.Now
	}
	pages, err := parsePages()
	if err != nil {
		return nil, err
	}
	a.pages = pages
	a.fiber = fiber.New(fiber.Config{
		BodyLimit:             maxForm,
		DisableStartupMessage: true,
		ErrorHandler:          a.errorPage,
		ReadTimeout:           30 * time.Second,
	})
	for _, m := range o.Middleware {
		a.fiber.Use(m)
	}
	a.fiber.Use(securityHeaders)
	a.routes()
	return a, nil
}

// Fiber is the app to serve.
func (a *App) Fiber() *fiber.App { return a.fiber }

func (a *App) routes() {
	static, _ := fs.Sub(staticFS, "static")
	r := a.fiber.Group(Base)
	r.Get("/static/:name", serveStatic(static))
	r.Get("/sign-in", a.signInPage)
	r.Post("/sign-in", a.anonymousCSRF, a.signIn)
	r.Get("/set-password", a.setPasswordPage)
	r.Post("/set-password", a.anonymousCSRF, a.setPassword)

	in := r.Group("", a.requireSession, a.sessionCSRF)
	in.Get("/", a.home)
	in.Post("/sign-out", a.signOut)
	in.Get("/overview", a.overviewPage)
	in.Get("/account", a.accountPage)
	in.Post("/account/password", a.changePassword)
	a.tokenRoutes(in)
	a.webhookRoutes(in)
	a.userRoutes(in)
	a.transactionRoutes(in)
	a.contactRoutes(in)
	a.batchRoutes(in)
	a.optinRoutes(in)
	r.Use(func(c *fiber.Ctx) error { return fiber.ErrNotFound })
}

// securityHeaders keeps pages out of frames and caches and the referrer
// (the set-password link carries a secret) off other sites.
func securityHeaders(c *fiber.Ctx) error {
	c.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'")
	c.Set("X-Frame-Options", "DENY")
	c.Set("X-Content-Type-Options", "nosniff")
	c.Set("Referrer-Policy", "no-referrer")
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.Next()
}

func serveStatic(static fs.FS) fiber.Handler {
	return func(c *fiber.Ctx) error {
		b, err := fs.ReadFile(static, c.Params("name"))
		if err != nil {
			return fiber.ErrNotFound
		}
		switch {
		case hasSuffix(c.Params("name"), ".css"):
			c.Set(fiber.HeaderContentType, "text/css; charset=utf-8")
		case hasSuffix(c.Params("name"), ".js"):
			c.Set(fiber.HeaderContentType, "text/javascript; charset=utf-8")
		default:
			return fiber.ErrNotFound
		}
		c.Set(fiber.HeaderCacheControl, "public, max-age=3600")
		return c.Send(b)
	}
}

func hasSuffix(s, suffix string) bool {
	return len(s) >= len(suffix) && s[len(s)-len(suffix):] == suffix
}

// errorPage renders any error as a page: its status, never a stack or SQL.
func (a *App) errorPage(c *fiber.Ctx, err error) error {
	status := http.StatusInternalServerError
	var fe *fiber.Error
	var pe *pageError
	switch {
	case errors.As(err, &pe):
		status = pe.status
	case errors.As(err, &fe):
		status = fe.Code
	case identity.StatusOf(err) == http.StatusServiceUnavailable || identity.StatusOf(err) == 0 && isUnreachable(err):
		status = http.StatusServiceUnavailable
	}
	if status >= 500 {
		a.log.Error("dashboard request failed", "path", c.Path(), "err", err)
	}
	title, text := statusText(status)
	c.Status(status)
	return a.render(c, "error", page{Title: title, Message: text, Status: status})
}

func isUnreachable(err error) bool {
	var ne interface{ Timeout() bool }
	return errors.As(err, &ne)
}

// pageError is an error answer with its status.
type pageError struct {
	status int
}

func (e *pageError) Error() string { return fmt.Sprintf("status %d", e.status) }

func statusText(status int) (string, string) {
	switch status {
	case 419:
		return "Page expired", "This form was open too long or came from another page. Go back, reload the page and try again."
	case http.StatusForbidden:
		return "Not allowed", "Your role does not allow this. Ask an owner of your organisation if you need it."
	case http.StatusNotFound:
		return "Page not found", "There is nothing at this address."
	case http.StatusRequestEntityTooLarge:
		return "Too much data", "The form sent more than the dashboard accepts."
	case http.StatusServiceUnavailable:
		return "Temporarily unavailable", "A part of Paylane is not answering right now. Try again in a minute."
	}
	if status >= 400 && status < 500 {
		return "Request refused", "The dashboard could not accept this request."
	}
	return "Something went wrong", "The dashboard could not finish this request. Try again in a minute."
}
