package pages

import (
	"crypto/hmac"
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/transactions-svc/internal/links"
)

// csrfCookie holds the browser's random nonce; the form's _csrf field is an
// HMAC of that nonce and the page path under the link key. A forged
// cross-site post has neither the cookie (SameSite=Strict, HttpOnly) nor a
// token that matches it.
const csrfCookie = "pl_csrf"

const nonceLen = 32 // hex characters

// csrfToken returns the token of the page's form, setting the nonce cookie
// when the browser has none.
func csrfToken(c *fiber.Ctx, signer *links.Signer, path string) string {
	nonce := c.Cookies(csrfCookie)
	if !validNonce(nonce) {
		b := make([]byte, nonceLen/2)
		_, _ = rand.Read(b) // crypto/rand.Read does not fail
		nonce = hex.EncodeToString(b)
		c.Cookie(&fiber.Cookie{
			Name: csrfCookie, Value: nonce, Path: "/l/", HTTPOnly: true, Secure: signer.Secure(),
			SameSite: fiber.CookieSameSiteStrictMode, Expires: time.Now().Add(24 * time.Hour),
		})
	}
	return signer.MAC("csrf", nonce, path)
}

// csrfValid reports whether the posted _csrf matches the browser's nonce.
func csrfValid(c *fiber.Ctx, signer *links.Signer, path string) bool {
	nonce, token := c.Cookies(csrfCookie), c.FormValue("_csrf")
	if !validNonce(nonce) || token == "" {
		return false
	}
	return hmac.Equal([]byte(token), []byte(signer.MAC("csrf", nonce, path)))
}

func validNonce(s string) bool {
	if len(s) != nonceLen {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}
