package httpx

import (
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/reqid"
)

// OnUnknownMethod makes h answer the requests whose method app does not
// route: Fiber refuses those itself with a plain-text 400, before any
// middleware. h runs with the request id assigned (as RequestID does) and a
// panic recovered; an error it returns is rendered by the app's
// ErrorHandler. No other middleware runs for such a request. A later call
// takes precedence over an earlier one (NewApp installs the default).
func OnUnknownMethod(app *fiber.App, log *slog.Logger, h fiber.Handler) {
	known := make(map[string]bool, len(app.Config().RequestMethods))
	for _, m := range app.Config().RequestMethods {
		known[m] = true
	}
	srv := app.Server()
	routed := srv.Handler
	srv.Handler = func(fctx *fasthttp.RequestCtx) {
		if known[string(fctx.Method())] {
			routed(fctx)
			return
		}
		c := app.AcquireCtx(fctx)
		defer app.ReleaseCtx(c)
		if err := runUnknown(c, log, h); err != nil {
			if herr := app.ErrorHandler(c, err); herr != nil {
				_ = c.SendStatus(http.StatusInternalServerError)
			}
		}
	}
}

func runUnknown(c *fiber.Ctx, log *slog.Logger, h fiber.Handler) (err error) {
	defer func() {
		if r := recover(); r != nil {
			log.ErrorContext(c.UserContext(), "panic in handler",
				"request_id", reqid.From(c.UserContext()),
				"method", c.Method(),
				"panic", fmt.Sprint(r),
				"stack", string(debug.Stack()))
			err = apierr.Internal()
		}
	}()
	assignRequestID(c)
	return h(c)
}

// routeError is the answer of a service to a method it does not route: 405
// with the methods of the routes matching the path, else 404.
func routeError(app *fiber.App, c *fiber.Ctx) error {
	path := c.Path()
	var allow []string
	for _, r := range app.GetRoutes(true) {
		if !slices.Contains(allow, r.Method) && fiber.RoutePatternMatch(path, r.Path, app.Config()) {
			allow = append(allow, r.Method)
		}
	}
	if len(allow) == 0 {
		return apierr.RouteNotFound()
	}
	slices.Sort(allow)
	e := apierr.New(http.StatusMethodNotAllowed, apierr.CodeMethodNotAllowed, "The method is not allowed for this endpoint.")
	e.Headers = map[string]string{fiber.HeaderAllow: strings.Join(allow, ", ")}
	return e
}
