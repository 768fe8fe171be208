package edge

import (
	"errors"
	"html"
	"net/http"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/reqid"
)

// pageLimitKey names the per-IP budget of the hosted pages.
const pageLimitKey = "page-ip"

// linkKey is the budget of the payment or payout link a hosted-page path
// names (/l/r/{id}, /l/p/{id}, whatever follows), or "" for other pages:
// an opt-in code (/l/o/{code}) is printed on posters and scanned by many
// people at once, so only the per-IP budget applies to it.
func linkKey(path string) string {
	parts := strings.SplitN(strings.TrimPrefix(path, "/"), "/", 4)
	if len(parts) < 3 || parts[0] != "l" || (parts[1] != "r" && parts[1] != "p") || parts[2] == "" {
		return ""
	}
	return "page-link:" + parts[1] + "/" + parts[2]
}

// pageRefusal renders a hosted page's 429 for a person: an HTML page that
// says when to try again (the answer is then written and it returns nil),
// unless the client asks for JSON (then the envelope, as the pages answer
// their own errors). Other errors are returned as they are.
func pageRefusal(c *fiber.Ctx, err error) error {
	var e *apierr.Error
	if !errors.As(err, &e) || e.Status != http.StatusTooManyRequests ||
		strings.Contains(c.Get(fiber.HeaderAccept), fiber.MIMEApplicationJSON) {
		return err
	}
	id := reqid.From(c.UserContext())
	c.Set(fiber.HeaderRetryAfter, strconv.Itoa(e.RetryAfter))
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Set(fiber.HeaderContentSecurityPolicy, "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	wait := strconv.Itoa(e.RetryAfter) + " seconds"
	if e.RetryAfter == 1 {
		wait = "1 second"
	}
	return c.Status(http.StatusTooManyRequests).SendString(strings.NewReplacer(
		"{wait}", wait, "{id}", html.EscapeString(id)).Replace(tooManyPage))
}

const tooManyPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Please wait a moment</title>
<style>
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f5f7;color:#1a1d21}
main{max-width:28rem;margin:0 auto;padding:1.25rem}
.card{background:#fff;border-radius:12px;padding:1.25rem;box-shadow:0 1px 3px rgba(0,0,0,.12)}
h1{font-size:1.35rem;margin:0 0 .5rem}.muted{color:#5b6470;font-size:.85rem}
</style>
</head>
<body>
<main>
<div class="card">
<h1>Please wait a moment</h1>
<p>This page was opened many times in the last minute. Try again in {wait}: your link still works.</p>
<p class="muted">Reference: {id}</p>
</div>
</main>
</body>
</html>
`
