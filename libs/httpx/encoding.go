package httpx

import (
	"bytes"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/apierr"
)

// CheckEncoding refuses a request that declares a Content-Encoding other
// than identity, whatever its route and method: 415 with code bad_request
// (the API has no code of its own for it). Paylane accepts no compressed
// request bodies: Fiber's Ctx.Body and fasthttp's multipart form reader
// inflate gzip, deflate and br with no cap on the inflated size, so a body
// far below the 1 MB or 5 MB limit could grow to gigabytes. Every
// Content-Encoding header and every coding in its list is looked at: Fiber
// decodes by the last header, fasthttp's Peek reads the first.
func CheckEncoding(c *fiber.Ctx) error {
	encoded := false
	c.Request().Header.VisitAll(func(key, value []byte) {
		if encoded || !bytes.EqualFold(key, []byte(fiber.HeaderContentEncoding)) {
			return
		}
		for coding := range bytes.SplitSeq(value, []byte(",")) {
			coding = bytes.TrimSpace(coding)
			if len(coding) > 0 && !bytes.EqualFold(coding, []byte("identity")) {
				encoded = true
				return
			}
		}
	})
	if encoded {
		return apierr.New(http.StatusUnsupportedMediaType, apierr.CodeBadRequest,
			"Compressed request bodies are not accepted; send the body without Content-Encoding.")
	}
	return nil
}

// RefuseEncoded is a handler that runs CheckEncoding before the handlers
// after it, for routes that read a body without Decode (form posts).
func RefuseEncoded(c *fiber.Ctx) error {
	if err := CheckEncoding(c); err != nil {
		return err
	}
	return c.Next()
}
