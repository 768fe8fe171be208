package httpx

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/apierr"
)

// DefaultBodyLimit is the request body cap of NewApp when the given config
// sets none (contract section 2: 1 MB; the batch service passes 5 MB).
const DefaultBodyLimit = 1 << 20

// DefaultReadBufferSize bounds the request line and headers a service reads.
const DefaultReadBufferSize = 32 << 10

// DefaultReadTimeout bounds reading one request (line, headers and body): a
// client that announces more body than it sends is answered 408 instead of
// holding a connection and its goroutine.
const DefaultReadTimeout = 10 * time.Second

// DefaultIdleTimeout is how long a kept-alive connection may wait for its
// next request; longer than the 30 s the gateway keeps idle upstream
// connections, so the gateway never reuses one the service is closing.
const DefaultIdleTimeout = 2 * time.Minute

// NewApp returns a Fiber app wired the same way in every service: the
// envelope ErrorHandler, the RequestID middleware, panic recovery (the stack
// is logged, the client gets a 500 server_error envelope) and encoding/json.
// The optional config is the base; ErrorHandler, JSON codecs and BodyLimit
// are filled in when it leaves them zero, and so are ReadTimeout and
// IdleTimeout. The startup banner is always off: logs are JSON. A request
// whose method Fiber does not route (PROPFIND, any other token) gets the
// envelope too: 405 method_not_allowed with Allow when a route matches its
// path, else 404 route_not_found (see OnUnknownMethod).
func NewApp(log *slog.Logger, cfg ...fiber.Config) *fiber.App {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var c fiber.Config
	if len(cfg) > 0 {
		c = cfg[0]
	}
	if c.ErrorHandler == nil {
		c.ErrorHandler = ErrorHandler(log)
	}
	if c.JSONEncoder == nil {
		c.JSONEncoder = marshalJSON
	}
	if c.JSONDecoder == nil {
		c.JSONDecoder = json.Unmarshal
	}
	if c.BodyLimit == 0 {
		c.BodyLimit = DefaultBodyLimit
	}
	if c.ReadBufferSize == 0 {
		// Internal tokens carry the token's abilities: a token holding
		// every ability is about 4 KB, fasthttp's whole default buffer.
		c.ReadBufferSize = DefaultReadBufferSize
	}
	if c.ReadTimeout == 0 {
		c.ReadTimeout = DefaultReadTimeout
	}
	if c.IdleTimeout == 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	c.DisableStartupMessage = true
	app := fiber.New(c)
	app.Use(RequestID(), Recover(log))
	OnUnknownMethod(app, log, func(c *fiber.Ctx) error { return routeError(app, c) })
	return app
}

// Recover returns the middleware that turns a panic in a later handler into
// a 500 server_error envelope; the panic value and stack go to the log with
// the request id, never to the client.
func Recover(log *slog.Logger) fiber.Handler {
	return func(c *fiber.Ctx) (err error) {
		defer func() {
			r := recover()
			if r == nil {
				return
			}
			log.ErrorContext(c.UserContext(), "panic in handler",
				"method", c.Method(),
				"route", c.Route().Path,
				"panic", fmt.Sprint(r),
				"stack", string(debug.Stack()))
			err = apierr.Internal()
		}()
		return c.Next()
	}
}

// marshalJSON is encoding/json without HTML escaping: API bodies are read by
// programs, and links keep their "&" instead of "\u0026".
func marshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
