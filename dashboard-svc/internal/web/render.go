package web

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"html/template"
	"io/fs"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	identity "github.com/paylane/paylane/identity-svc/client"
)

// page is what every template receives.
type page struct {
	Title   string
	Nav     string
	User    *identity.User
	CSRF    string
	Message string
	Status  int
	Errors  map[string]string
	Form    map[string]string
	Notice  string
	Data    any
	// IdempotencyKey goes into a write form's hidden idempotencyField:
	// fresh with each render, so a form sent twice (a double click, the
	// back button) repeats one key and the service answers its first
	// result instead of writing twice.
	IdempotencyKey string
}

// idempotencyField is the hidden form field carrying a write's
// Idempotency-Key ({{.IdempotencyKey}} in the templates).
const idempotencyField = "_idempotency_key"

// formIdempotencyKey is the Idempotency-Key for the write a form asks for:
// the form's own, or a fresh one when the form carried none.
func formIdempotencyKey(c *fiber.Ctx) string {
	if k := c.FormValue(idempotencyField); k != "" {
		return k
	}
	return rand.Text()
}

// Can reports whether the signed-in user's role holds ability.
func (p page) Can(ability string) bool {
	if p.User == nil {
		return false
	}
	for _, a := range p.User.Abilities {
		if a == ability {
			return true
		}
	}
	return false
}

var funcs = template.FuncMap{
	"when": func(t *time.Time) string {
		if t == nil {
			return "Never"
		}
		return t.UTC().Format("2 Jan 2006, 15:04 UTC")
	},
	"date": func(t time.Time) string { return t.UTC().Format("2 Jan 2006") },
	// at is when for a time that is always set.
	"at":    func(t time.Time) string { return t.UTC().Format("2 Jan 2006, 15:04 UTC") },
	"short": func(a string) string { return strings.TrimPrefix(a, "api:") },
	"label": func(s string) string {
		s = strings.ReplaceAll(s, "_", " ")
		if s == "" {
			return s
		}
		return strings.ToUpper(s[:1]) + s[1:]
	},
}

// parsePages parses every page with the layout: one template set per page.
func parsePages() (map[string]*template.Template, error) {
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	pages := map[string]*template.Template{}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if name == "layout" {
			continue
		}
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", n)
		if err != nil {
			return nil, fmt.Errorf("parsing %s: %w", n, err)
		}
		pages[name] = t
	}
	return pages, nil
}

// render writes a page; the status is whatever the handler set (200 by default).
func (a *App) render(c *fiber.Ctx, name string, p page) error {
	t, ok := a.pages[name]
	if !ok {
		return fmt.Errorf("no page %q", name)
	}
	if p.User == nil {
		if u, _ := c.Locals(localUser).(*identity.User); u != nil {
			p.User = u
		}
	}
	if p.CSRF == "" {
		p.CSRF = current(c).CSRFToken
	}
	if p.IdempotencyKey == "" {
		p.IdempotencyKey = rand.Text()
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, p); err != nil {
		return fmt.Errorf("rendering %s: %w", name, err)
	}
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	return c.Send(buf.Bytes())
}
