package web

import (
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	identity "github.com/paylane/paylane/identity-svc/client"
)

func (a *App) signInPage(c *fiber.Ctx) error {
	if c.Cookies(sessionCookie) != "" {
		// A live session goes straight in; a dead one is sorted out there.
		return c.Redirect(Base, http.StatusFound)
	}
	token, err := a.anonymousToken(c)
	if err != nil {
		return err
	}
	return a.render(c, "sign-in", page{Title: "Sign in", CSRF: token, Notice: noticeOf(c.Query("notice"))})
}

func noticeOf(code string) string {
	switch code {
	case "signed-out":
		return "You have signed out."
	case "password-set":
		return "Your password is set."
	case "revoked":
		return "The token is revoked: requests with it now answer 401."
	}
	return ""
}

func (a *App) signIn(c *fiber.Ctx) error {
	email, password := strings.TrimSpace(c.FormValue("email")), c.FormValue("password")
	p := page{Title: "Sign in", CSRF: c.Cookies(csrfCookie), Form: map[string]string{"email": email}}
	if email == "" || password == "" {
		c.Status(http.StatusUnprocessableEntity)
		p.Errors = map[string]string{"form": "Enter your email and password."}
		return a.render(c, "sign-in", p)
	}
	u, err := a.identity.SignIn(c.UserContext(), email, password)
	switch status := identity.StatusOf(err); {
	case err == nil:
	case status == http.StatusUnauthorized, status == http.StatusUnprocessableEntity:
		c.Status(http.StatusUnauthorized)
		p.Errors = map[string]string{"form": "That email and password do not match an account."}
		return a.render(c, "sign-in", p)
	case status == http.StatusTooManyRequests:
		c.Status(http.StatusTooManyRequests)
		p.Errors = map[string]string{"form": "Too many failed attempts for this email. Wait 15 minutes, then try again."}
		return a.render(c, "sign-in", p)
	default:
		return err
	}
	if err := a.startSession(c, u); err != nil {
		return err
	}
	return c.Redirect(Base, http.StatusSeeOther)
}

func (a *App) signOut(c *fiber.Ctx) error {
	if err := a.sessions.Delete(c.UserContext(), current(c).IDHash); err != nil {
		return err
	}
	clearCookie(c, sessionCookie)
	return c.Redirect(Base+"/sign-in?notice=signed-out", http.StatusSeeOther)
}

// home is the first page after sign-in: the overview for those who read
// receivables or payables, else API tokens for those who manage them, else
// the account page.
func (a *App) home(c *fiber.Ctx) error {
	if canOverview(currentUser(c).Abilities) {
		return c.Redirect(Base+"/overview", http.StatusFound)
	}
	if (page{User: currentUser(c)}).Can(abilityManageTokens) {
		return c.Redirect(Base+"/tokens", http.StatusFound)
	}
	return c.Redirect(Base+"/account", http.StatusFound)
}

func (a *App) setPasswordPage(c *fiber.Ctx) error {
	token, err := a.anonymousToken(c)
	if err != nil {
		return err
	}
	link := c.Query("token")
	if link == "" {
		c.Status(http.StatusNotFound)
		return a.render(c, "error", page{Title: "Link incomplete", Status: 404,
			Message: "This address has no set-password token. Open the whole link you were sent."})
	}
	return a.render(c, "set-password", page{Title: "Set your password", CSRF: token, Form: map[string]string{"token": link}})
}

func (a *App) setPassword(c *fiber.Ctx) error {
	link, password := c.FormValue("token"), c.FormValue("password")
	p := page{Title: "Set your password", CSRF: c.Cookies(csrfCookie), Form: map[string]string{"token": link}}
	if password != c.FormValue("password_confirmation") {
		c.Status(http.StatusUnprocessableEntity)
		p.Errors = map[string]string{"password_confirmation": "The two passwords differ."}
		return a.render(c, "set-password", p)
	}
	u, err := a.identity.SetPassword(c.UserContext(), link, password)
	if fields, ok := validation(err, nil); ok {
		c.Status(http.StatusUnprocessableEntity)
		p.Errors = fields
		return a.render(c, "set-password", p)
	}
	if err != nil {
		return err
	}
	if err := a.startSession(c, u); err != nil {
		return err
	}
	return c.Redirect(Base, http.StatusSeeOther)
}

func (a *App) accountPage(c *fiber.Ctx) error {
	return a.render(c, "account", page{Title: "Your account", Nav: "account", Notice: noticeOf(c.Query("notice"))})
}

func (a *App) changePassword(c *fiber.Ctx) error {
	se, u := current(c), currentUser(c)
	p := page{Title: "Your account", Nav: "account"}
	if c.FormValue("password") != c.FormValue("password_confirmation") {
		c.Status(http.StatusUnprocessableEntity)
		p.Errors = map[string]string{"password_confirmation": "The two passwords differ."}
		return a.render(c, "account", p)
	}
	err := a.identity.ChangePassword(c.UserContext(), se.TenantID, u.ID, c.FormValue("current_password"), c.FormValue("password"))
	if fields, ok := validation(err, nil); ok {
		c.Status(http.StatusUnprocessableEntity)
		p.Errors = fields
		return a.render(c, "account", p)
	}
	if err != nil {
		return err
	}
	// Other browsers signed in as this user must sign in again.
	if err := a.sessions.DeleteUser(c.UserContext(), se.TenantID, u.ID, se.IDHash); err != nil {
		return err
	}
	return c.Redirect(Base+"/account?notice=password-set", http.StatusSeeOther)
}
