package web

import (
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/dashboard-svc/internal/session"
	identity "github.com/paylane/paylane/identity-svc/client"
)

// Cookie names. Both are HttpOnly, Secure and SameSite=Lax, scoped to /dashboard.
const (
	sessionCookie = "paylane_session"
	// csrfCookie carries the CSRF token of the forms shown before a
	// session exists (sign-in, set password): the form's _csrf field must
	// equal it (double submit).
	csrfCookie = "paylane_csrf"
	csrfField  = "_csrf"
)

// Locals keys of a signed-in request.
const (
	localSession = "session"
	localUser    = "user"
)

func setCookie(c *fiber.Ctx, name, value string, maxAge time.Duration) {
	c.Cookie(&fiber.Cookie{
		Name: name, Value: value, Path: Base, HTTPOnly: true, Secure: true, SameSite: fiber.CookieSameSiteLaxMode,
		MaxAge: int(maxAge.Seconds()),
	})
}

func clearCookie(c *fiber.Ctx, name string) {
	c.Cookie(&fiber.Cookie{Name: name, Value: "", Path: Base, HTTPOnly: true, Secure: true,
		SameSite: fiber.CookieSameSiteLaxMode, MaxAge: -1, Expires: time.Unix(1, 0)})
}

// requireSession loads the session of the cookie and its user, fresh from
// identity-svc (a disabled user's session ends at once); without one, 302
// to the sign-in page.
func (a *App) requireSession(c *fiber.Ctx) error {
	id := c.Cookies(sessionCookie)
	if id == "" {
		return c.Redirect(Base+"/sign-in", http.StatusFound)
	}
	ctx := c.UserContext()
	se, err := a.sessions.Get(ctx, session.Hash(id), a.now())
	if errors.Is(err, session.ErrNotFound) {
		clearCookie(c, sessionCookie)
		return c.Redirect(Base+"/sign-in", http.StatusFound)
	}
	if err != nil {
		return err
	}
	u, err := a.identity.User(ctx, se.TenantID, se.UserID)
	if identity.StatusOf(err) == http.StatusNotFound || (err == nil && u.DisabledAt != nil) {
		if err := a.sessions.Delete(ctx, se.IDHash); err != nil {
			return err
		}
		clearCookie(c, sessionCookie)
		return c.Redirect(Base+"/sign-in", http.StatusFound)
	}
	if err != nil {
		return err
	}
	c.Locals(localSession, se)
	c.Locals(localUser, u)
	return c.Next()
}

// sessionCSRF refuses a state-changing request whose _csrf field is not
// the session's token: 419.
func (a *App) sessionCSRF(c *fiber.Ctx) error {
	if c.Method() == http.MethodGet || c.Method() == http.MethodHead {
		return c.Next()
	}
	if !session.SameToken(c.FormValue(csrfField), current(c).CSRFToken) {
		return &pageError{status: 419}
	}
	return c.Next()
}

// anonymousCSRF refuses a form posted before sign-in whose _csrf field is
// not the CSRF cookie's value: 419.
func (a *App) anonymousCSRF(c *fiber.Ctx) error {
	if !session.SameToken(c.FormValue(csrfField), c.Cookies(csrfCookie)) {
		return &pageError{status: 419}
	}
	return c.Next()
}

// anonymousToken returns the CSRF cookie's token, setting a new one when
// there is none.
func (a *App) anonymousToken(c *fiber.Ctx) (string, error) {
	if t := c.Cookies(csrfCookie); len(t) >= 32 {
		return t, nil
	}
	t, err := session.NewSecret()
	if err != nil {
		return "", err
	}
	setCookie(c, csrfCookie, t, 2*time.Hour)
	return t, nil
}

// requireAbility lets through users whose role holds ability; others get 403.
func (a *App) requireAbility(ability string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if !slices.Contains(currentUser(c).Abilities, ability) {
			return &pageError{status: http.StatusForbidden}
		}
		return c.Next()
	}
}

func current(c *fiber.Ctx) session.Session {
	se, _ := c.Locals(localSession).(session.Session)
	return se
}

func currentUser(c *fiber.Ctx) *identity.User {
	u, _ := c.Locals(localUser).(*identity.User)
	if u == nil {
		return &identity.User{}
	}
	return u
}

// startSession signs the browser in as u: a new session and its cookie.
func (a *App) startSession(c *fiber.Ctx, u *identity.User) error {
	id, err := session.NewSecret()
	if err != nil {
		return err
	}
	csrf, err := session.NewSecret()
	if err != nil {
		return err
	}
	se := session.Session{IDHash: session.Hash(id), TenantID: u.TenantID, UserID: u.ID, CSRFToken: csrf, CreatedAt: a.now()}
	if err := a.sessions.Create(c.UserContext(), se); err != nil {
		return err
	}
	setCookie(c, sessionCookie, id, 0)
	clearCookie(c, csrfCookie)
	return nil
}

// userToken is the signed-in user's internal token from identity-svc: it
// carries the user's tenant and role abilities, so a peer applies its gates
// and tenant scope exactly as it does on the API.
func (a *App) userToken(c *fiber.Ctx) (string, error) {
	return a.identity.UserToken(c.UserContext(), current(c).TenantID, currentUser(c).ID)
}
