package proxy

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/reqid"
)

// maxWholeBody bounds an answer that is not an event stream when it is
// read whole on the streaming path (the API's own answers are far smaller).
const maxWholeBody = 16 << 20

// AcceptsEventStream reports whether the client asks for an event stream
// (Accept: text/event-stream), as an MCP client does: its answer may be a
// stream the gateway must pass on as it comes.
func AcceptsEventStream(c *fiber.Ctx) bool {
	return strings.Contains(strings.ToLower(c.Get(fiber.HeaderAccept)), "text/event-stream")
}

// Stream is Forward for a client that accepts an event stream: an answer
// of type text/event-stream is passed on as the upstream writes it, each
// read sent and flushed at once, for as long as both sides keep it open;
// any other answer is passed on whole, as Forward does. The request is the
// same as Forward's (rewritten headers, the body as received).
func (f *Forwarder) Stream(c *fiber.Ctx, r Request) error {
	req := c.Request()
	original := string(req.Header.RequestURI())
	ctx, cancel := context.WithCancel(context.Background())
	up, err := http.NewRequestWithContext(ctx, string(req.Header.Method()), strings.TrimSuffix(r.Upstream, "/")+original,
		bytes.NewReader(bytes.Clone(req.Body())))
	if err != nil {
		cancel()
		return f.failure(c, r.Upstream, original, err)
	}
	req.Header.VisitAll(func(k, v []byte) { up.Header.Add(string(k), string(v)) })
	dropHopByHop(netHeader(up.Header))
	for _, h := range []string{fiber.HeaderExpect, "Forwarded", fiber.HeaderHost, fiber.HeaderContentLength, fiber.HeaderTransferEncoding} {
		up.Header.Del(h)
	}
	if !r.KeepAuthorization {
		up.Header.Del(fiber.HeaderAuthorization)
		if r.Authorization != "" {
			up.Header.Set(fiber.HeaderAuthorization, r.Authorization)
		}
	}
	up.Header.Set(fiber.HeaderXForwardedFor, c.IP())
	up.Header.Set(fiber.HeaderXForwardedProto, r.Proto)
	up.Header.Set(fiber.HeaderXForwardedHost, r.Host)

	resp, err := f.streams.Do(up)
	if err != nil {
		cancel()
		return f.failure(c, r.Upstream, original, err)
	}
	out := &c.Response().Header
	kept := map[string]bool{}
	for _, h := range []string{reqid.Header, "X-RateLimit-Limit", "X-RateLimit-Remaining"} {
		kept[http.CanonicalHeaderKey(h)] = len(out.Peek(h)) > 0
	}
	dropHopByHop(netHeader(resp.Header))
	for k, vs := range resp.Header {
		if kept[http.CanonicalHeaderKey(k)] || strings.EqualFold(k, fiber.HeaderContentLength) {
			continue
		}
		for _, v := range vs {
			out.Add(k, v)
		}
	}
	c.Status(resp.StatusCode)
	if !strings.HasPrefix(resp.Header.Get(fiber.HeaderContentType), "text/event-stream") {
		defer cancel()
		defer resp.Body.Close()
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxWholeBody))
		if err != nil {
			return f.failure(c, r.Upstream, original, err)
		}
		return c.Send(body)
	}
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		defer cancel()
		defer resp.Body.Close()
		buf := make([]byte, 32<<10)
		for {
			n, err := resp.Body.Read(buf)
			if n > 0 {
				if _, werr := w.Write(buf[:n]); werr != nil {
					return
				}
				if werr := w.Flush(); werr != nil {
					return // the client went away: cancel closes the upstream stream
				}
			}
			if err != nil {
				return
			}
		}
	})
	return nil
}

// netHeader lets dropHopByHop work on a net/http header.
type netHeader http.Header

func (h netHeader) Peek(key string) []byte { return []byte(http.Header(h).Get(key)) }
func (h netHeader) Del(key string)         { http.Header(h).Del(key) }

// newStreamClient is the client of Stream: pooled connections, the
// upstream's answer header awaited at most timeout, no bound on how long
// a stream lasts, no transparent compression (bodies pass as they are).
func newStreamClient(opts Options) *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:                 nil,
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		TLSClientConfig:       TLSConfig(opts.ExtraRootCAs),
		MaxIdleConnsPerHost:   64,
		IdleConnTimeout:       30 * time.Second,
		ResponseHeaderTimeout: opts.Timeout,
		DisableCompression:    true,
	}, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}
