package httpapi

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"strings"
	"sync"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/apierr"
)

// Bridge serves a net/http handler (the MCP SDK's) on a Fiber route, with
// the request context Fiber's middleware built (claims, token). An answer
// of type text/event-stream is streamed to the client as the handler
// writes it, each flush sent at once; any other answer is sent whole. A
// plain-text error of the handler becomes the error envelope.
func Bridge(h http.Handler) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ctx, cancel := context.WithCancel(c.UserContext())
		req, err := netRequest(ctx, c)
		if err != nil {
			cancel()
			return apierr.BadRequest("The request could not be read.")
		}
		w := newBridgeWriter(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer w.finish()
			// Fiber's recovery does not reach this goroutine: a panic of
			// the handler is a 500 (when nothing was sent yet), not a crash.
			defer func() {
				if p := recover(); p != nil {
					w.fail()
				}
			}()
			h.ServeHTTP(w, req)
		}()
		select {
		case <-w.committed:
		case <-done:
		}
		if !w.stream {
			<-done
			cancel()
			return w.respond(c)
		}
		copyHeader(c, w.header)
		c.Status(w.status)
		c.Context().SetBodyStreamWriter(func(out *bufio.Writer) {
			defer cancel()
			for chunk := range w.chunks {
				if _, err := out.Write(chunk); err != nil {
					return
				}
				if err := out.Flush(); err != nil {
					return // the client went away: cancel ends the handler
				}
			}
		})
		return nil
	}
}

// mcpHeaders refuses, with 422 naming the header, a request the MCP
// transport cannot serve for want of a header: Accept listing
// application/json and text/event-stream on POST, text/event-stream on GET;
// Mcp-Session-Id on GET and DELETE (POST without one may only initialize,
// which the transport checks).
func mcpHeaders(c *fiber.Ctx) error {
	accept := strings.ToLower(c.Get(fiber.HeaderAccept))
	problems := map[string][]string{}
	switch c.Method() {
	case fiber.MethodPost:
		if !strings.Contains(accept, "application/json") || !strings.Contains(accept, "text/event-stream") {
			problems["Accept"] = []string{"The Accept header must list application/json and text/event-stream."}
		}
	case fiber.MethodGet:
		if !strings.Contains(accept, "text/event-stream") {
			problems["Accept"] = []string{"The Accept header must list text/event-stream."}
		}
	}
	if c.Method() != fiber.MethodPost && c.Get("Mcp-Session-Id") == "" {
		problems["Mcp-Session-Id"] = []string{"The Mcp-Session-Id header is required: initialize a session first."}
	}
	if len(problems) > 0 {
		return apierr.Validation(problems)
	}
	return c.Next()
}

// netRequest copies the request into a net/http one on ctx: the handler
// may run on after the Fiber handler returned (an event stream), so it
// shares no buffer with Fiber's.
func netRequest(ctx context.Context, c *fiber.Ctx) (*http.Request, error) {
	r := c.Request()
	req, err := http.NewRequestWithContext(ctx, string(r.Header.Method()), string(r.URI().FullURI()),
		bytes.NewReader(bytes.Clone(r.Body())))
	if err != nil {
		return nil, err
	}
	r.Header.VisitAll(func(k, v []byte) { req.Header.Add(string(k), string(v)) })
	req.Host = string(r.Host())
	req.RemoteAddr = c.Context().RemoteAddr().String()
	return req, nil
}

// bridgeWriter is the http.ResponseWriter the handler writes to. Until the
// header is written nothing is decided; then an event stream sends each
// flushed write as a chunk, anything else is buffered.
type bridgeWriter struct {
	ctx       context.Context
	header    http.Header
	status    int
	once      sync.Once
	committed chan struct{}
	stream    bool
	buf       bytes.Buffer // pending bytes: the whole body, or the stream's unflushed part
	chunks    chan []byte
	mu        sync.Mutex
}

func newBridgeWriter(ctx context.Context) *bridgeWriter {
	return &bridgeWriter{ctx: ctx, header: http.Header{}, committed: make(chan struct{}), chunks: make(chan []byte, 16)}
}

func (w *bridgeWriter) Header() http.Header { return w.header }

func (w *bridgeWriter) WriteHeader(status int) {
	w.once.Do(func() {
		w.status = status
		w.stream = strings.HasPrefix(w.header.Get("Content-Type"), "text/event-stream")
		close(w.committed)
	})
}

func (w *bridgeWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// Flush sends what the stream has pending to the client.
func (w *bridgeWriter) Flush() {
	w.WriteHeader(http.StatusOK)
	if !w.stream {
		return
	}
	w.mu.Lock()
	chunk := bytes.Clone(w.buf.Bytes())
	w.buf.Reset()
	w.mu.Unlock()
	if len(chunk) == 0 {
		return
	}
	select {
	case w.chunks <- chunk:
	case <-w.ctx.Done():
	}
}

// fail answers 500 when the handler broke before answering.
func (w *bridgeWriter) fail() {
	w.once.Do(func() {
		w.status = http.StatusInternalServerError
		w.header = http.Header{"Content-Type": {"text/plain"}}
		w.buf.Reset()
		w.buf.WriteString("The server could not complete the request.")
		close(w.committed)
	})
}

// finish runs when the handler returns: the rest of a stream is sent and
// the stream ends.
func (w *bridgeWriter) finish() {
	w.WriteHeader(http.StatusOK)
	if w.stream {
		w.Flush()
		close(w.chunks)
	}
}

// respond sends a buffered answer; a plain-text error becomes the envelope.
func (w *bridgeWriter) respond(c *fiber.Ctx) error {
	body := w.buf.Bytes()
	if w.status >= http.StatusBadRequest && !strings.HasPrefix(w.header.Get("Content-Type"), "application/json") {
		e := apierr.New(w.status, codeOf(w.status), strings.TrimSpace(string(body)))
		if allow := w.header.Get("Allow"); allow != "" {
			e.Headers = map[string]string{fiber.HeaderAllow: allow}
		}
		return e
	}
	copyHeader(c, w.header)
	return c.Status(w.status).Send(body)
}

// codeOf is the error code of a status the MCP handler answers.
func codeOf(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return apierr.CodeUnauthenticated
	case http.StatusForbidden:
		return apierr.CodeForbidden
	case http.StatusNotFound:
		return apierr.CodeResourceNotFound
	case http.StatusMethodNotAllowed:
		return apierr.CodeMethodNotAllowed
	case http.StatusRequestEntityTooLarge:
		return apierr.CodePayloadTooLarge
	}
	if status >= http.StatusInternalServerError {
		return apierr.CodeServerError
	}
	return apierr.CodeBadRequest
}

func copyHeader(c *fiber.Ctx, h http.Header) {
	for k, vs := range h {
		for _, v := range vs {
			c.Response().Header.Add(k, v)
		}
	}
}
