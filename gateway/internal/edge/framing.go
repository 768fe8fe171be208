package edge

import (
	"bytes"
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/apierr"
)

// MaxURILength bounds the request target (path and query): longer is 414.
// A request line and headers above the read buffer (httpx's 32 kB) are
// refused by fasthttp itself with 431.
const MaxURILength = 8 << 10

// checkFraming refuses what a well-formed HTTP/1.1 request never carries,
// before anything else looks at the request: a method or header name that is
// not a token, a request target that is neither a path nor an absolute
// http(s) URL (400), one longer than MaxURILength (414), a singleton header
// given twice, both Content-Length and Transfer-Encoding, and control
// characters in header values (400). The
// connection is closed after such an answer, since how the client framed
// the rest of it is not known. An absolute-form target
// ("GET https://host/api/v1/contacts", RFC 9112 section 3.2.2) is taken as
// its path and query, with its authority as Host; the gateway never connects
// to the host it names.
func checkFraming(c *fiber.Ctx) error {
	req := c.Request()
	if !isToken(req.Header.Method()) {
		c.Context().SetConnectionClose()
		return apierr.BadRequest("The request method is not a token.")
	}
	if err := originForm(req.Header.RequestURI(), c); err != nil {
		c.Context().SetConnectionClose()
		return err
	}
	if len(req.Header.RequestURI()) > MaxURILength {
		c.Context().SetConnectionClose()
		return apierr.New(http.StatusRequestURITooLong, apierr.CodeBadRequest, "The request URL is too long.")
	}
	if msg := headerProblem(req.Header.RawHeaders()); msg != "" {
		c.Context().SetConnectionClose()
		return apierr.BadRequest(msg)
	}
	return nil
}

// originForm rewrites an absolute-form target to the origin form.
func originForm(target []byte, c *fiber.Ctx) error {
	if len(target) > 0 && target[0] == '/' {
		return nil
	}
	rest, ok := cutScheme(target)
	if !ok {
		return apierr.BadRequest("The request target must be a path.")
	}
	authority, path := rest, []byte("/")
	if i := bytes.IndexAny(rest, "/?"); i >= 0 {
		authority, path = rest[:i], rest[i:]
		if path[0] == '?' {
			path = append([]byte("/"), path...)
		}
	}
	if len(authority) == 0 || bytes.ContainsAny(authority, "@#") {
		return apierr.BadRequest("The request target must be a path.")
	}
	authority = bytes.Clone(authority)
	c.Request().SetRequestURIBytes(bytes.Clone(path))
	c.Request().Header.SetHostBytes(authority)
	return nil
}

func cutScheme(target []byte) ([]byte, bool) {
	for _, scheme := range [...]string{"http://", "https://"} {
		if len(target) >= len(scheme) && bytes.EqualFold(target[:len(scheme)], []byte(scheme)) {
			return target[len(scheme):], true
		}
	}
	return nil, false
}

// headerProblem returns what is wrong with the raw header block, or "".
// The singletons are the request headers that may appear once: a second one
// is ambiguous (which credential, which key, which media type, which
// length?), so the request is refused instead of the gateway and a service
// each picking one.
func headerProblem(raw []byte) string {
	singletons := [...]string{"Host", "Content-Length", "Content-Type", "Authorization", "Idempotency-Key", "Transfer-Encoding"}
	var seen [len(singletons)]int
	for len(raw) > 0 {
		var line []byte
		line, raw, _ = bytes.Cut(raw, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		name = bytes.TrimSpace(name)
		if !isToken(name) {
			return "A request header name is not a token."
		}
		for i, s := range singletons {
			if equalFold(name, s) {
				seen[i]++
				if seen[i] > 1 {
					return "The request has more than one " + s + " header."
				}
			}
		}
		for _, b := range value {
			if (b < 0x20 && b != '\t') || b == 0x7f {
				return "A request header contains a control character."
			}
		}
	}
	if seen[1] > 0 && seen[5] > 0 {
		return "The request has both Content-Length and Transfer-Encoding."
	}
	return ""
}

// equalFold is bytes.EqualFold against an ASCII string, without converting
// it.
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		if b[i]|0x20 != s[i]|0x20 {
			return false
		}
	}
	return true
}

// isToken reports whether b is an RFC 9110 token (a method or a header
// name).
func isToken(b []byte) bool {
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return len(b) > 0
}
