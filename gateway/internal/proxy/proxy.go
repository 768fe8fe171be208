// Package proxy forwards a request received by the gateway to an upstream
// service over pooled, kept-alive connections, and passes the upstream's
// answer back.
package proxy

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/libs/reqid"
)

// Forwarder sends requests to upstreams with one pooled fasthttp client.
type Forwarder struct {
	client *fasthttp.Client
	// streams serves Stream: event streams outlive fasthttp's read timeout.
	streams *http.Client
	log     *slog.Logger
}

// Options tune a Forwarder.
type Options struct {
	// ExtraRootCAs are trusted for HTTPS upstreams besides the system roots.
	ExtraRootCAs *x509.CertPool
	// Timeout bounds writing the request and reading the answer (30 s).
	Timeout time.Duration
	Logger  *slog.Logger
}

// NewForwarder returns a forwarder. Its pool keeps up to 1024 connections per
// upstream and reuses idle ones for 30 s, well inside the idle timeout of
// Go and Fiber servers.
func NewForwarder(opts Options) *Forwarder {
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Forwarder{log: opts.Logger, streams: newStreamClient(opts), client: &fasthttp.Client{
		NoDefaultUserAgentHeader: true,
		MaxConnsPerHost:          1024,
		MaxIdleConnDuration:      30 * time.Second,
		MaxConnWaitTimeout:       5 * time.Second,
		ReadTimeout:              opts.Timeout,
		WriteTimeout:             opts.Timeout,
		ReadBufferSize:           16 << 10,
		// The internal token makes request headers longer than fasthttp's
		// default 4 kB buffer, which then writes the header and the body
		// as two TLS records and two syscalls; 16 kB sends them as one.
		WriteBufferSize:        16 << 10,
		DisablePathNormalizing: true, // the path checked is the path sent
		TLSConfig:              TLSConfig(opts.ExtraRootCAs),
	}}
}

// Request says how to rewrite the client's request for the upstream.
type Request struct {
	// Upstream is the base URL (scheme://host[:port]); the client's raw path
	// and query are appended unchanged.
	Upstream string
	// Authorization replaces the client's Authorization header; empty
	// removes it, unless KeepAuthorization.
	Authorization     string
	KeepAuthorization bool
	// Proto and Host become X-Forwarded-Proto and X-Forwarded-Host; the
	// client's IP becomes X-Forwarded-For.
	Proto, Host string
}

// Forward sends the request in c to the upstream and writes its answer to
// c. An unreachable upstream is a 503 service_unavailable, a broken answer a
// 502 with the same code.
func (f *Forwarder) Forward(c *fiber.Ctx, r Request) error {
	req, resp := c.Request(), c.Response()
	// Response headers the gateway set before forwarding survive the
	// upstream's answer, except a service's own X-RateLimit-* on its 429:
	// the limit that refused is the one to report (batch-svc's per-tenant
	// batch limits), not the token's, which still had room.
	keptHeaders := [...]string{reqid.Header, "X-RateLimit-Limit", "X-RateLimit-Remaining"}
	var kept [len(keptHeaders)][]byte
	for i, h := range keptHeaders {
		kept[i] = append([]byte(nil), resp.Header.Peek(h)...)
	}
	original := append([]byte(nil), req.Header.RequestURI()...)
	clientIP := c.IP()

	rewriteRequest(req, r, clientIP, original)
	// The upstream continues the gateway's trace; a client's own
	// traceparent never travels past the edge.
	obs.InjectRequest(c.UserContext(), &req.Header)
	err := f.client.Do(req, resp)
	req.SetRequestURIBytes(original)
	if err != nil {
		resp.Reset()
	}
	ownLimit := err == nil && resp.StatusCode() == fiber.StatusTooManyRequests && len(resp.Header.Peek(keptHeaders[1])) > 0
	for i, h := range keptHeaders {
		if len(kept[i]) > 0 && (i == 0 || !ownLimit) {
			resp.Header.SetBytesV(h, kept[i])
		}
	}
	if err != nil {
		return f.failure(c, r.Upstream, string(original), err)
	}
	dropHopByHop(&resp.Header)
	return nil
}

func rewriteRequest(req *fasthttp.Request, r Request, clientIP string, original []byte) {
	dropHopByHop(&req.Header)
	req.Header.Del(fiber.HeaderExpect)
	req.Header.Del("Forwarded")
	if !r.KeepAuthorization {
		req.Header.Del(fiber.HeaderAuthorization)
		if r.Authorization != "" {
			req.Header.Set(fiber.HeaderAuthorization, r.Authorization)
		}
	}
	req.Header.Set(fiber.HeaderXForwardedFor, clientIP)
	req.Header.Set(fiber.HeaderXForwardedProto, r.Proto)
	req.Header.Set(fiber.HeaderXForwardedHost, r.Host)
	req.SetRequestURI(strings.TrimSuffix(r.Upstream, "/") + string(original))
	// A request received over TLS would otherwise keep https as its scheme.
	if scheme, _, ok := strings.Cut(r.Upstream, "://"); ok {
		req.URI().SetScheme(scheme)
	}
}

func (f *Forwarder) failure(c *fiber.Ctx, upstream, uri string, err error) error {
	status := http.StatusBadGateway
	if unreachable(err) {
		status = http.StatusServiceUnavailable
	}
	f.log.WarnContext(c.UserContext(), "upstream request failed",
		"request_id", reqid.From(c.UserContext()),
		"upstream", upstream,
		"method", c.Method(),
		"path", obs.RedactPath(uri),
		"status", status,
		"error", obs.RedactPhone(err.Error()))
	return apierr.New(status, apierr.CodeServiceUnavailable, "The service is temporarily unavailable. Please retry.")
}

// unreachable reports whether the upstream could not be reached at all (as
// opposed to answering badly).
func unreachable(err error) bool {
	var op *net.OpError
	return errors.Is(err, fasthttp.ErrDialTimeout) || errors.Is(err, fasthttp.ErrNoFreeConns) ||
		errors.Is(err, fasthttp.ErrTimeout) || errors.Is(err, fasthttp.ErrConnectionClosed) ||
		(errors.As(err, &op) && op.Op == "dial")
}

type headers interface {
	Peek(key string) []byte
	Del(key string)
}

// dropHopByHop removes the headers that concern one connection only (RFC
// 9110 section 7.6.1), including those the Connection header names; fasthttp
// itself manages Content-Length and Transfer-Encoding.
func dropHopByHop(h headers) {
	for _, name := range strings.Split(string(h.Peek(fiber.HeaderConnection)), ",") {
		if name = strings.TrimSpace(name); name != "" {
			h.Del(name)
		}
	}
	for _, name := range [...]string{"Connection", "Keep-Alive", "Proxy-Authenticate",
		"Proxy-Authorization", "Proxy-Connection", "TE", "Trailer", "Upgrade"} {
		h.Del(name)
	}
}

// TLSConfig is the client TLS configuration for upstreams: it trusts the
// system roots and, when given, extra roots (a local CA); a chain is
// accepted if either pool verifies it.
func TLSConfig(extra *x509.CertPool) *tls.Config {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if extra == nil {
		return cfg
	}
	cfg.InsecureSkipVerify = true // replaced by VerifyConnection below
	cfg.VerifyConnection = func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return errors.New("upstream presented no certificate")
		}
		opts := x509.VerifyOptions{DNSName: cs.ServerName, Intermediates: x509.NewCertPool()}
		for _, cert := range cs.PeerCertificates[1:] {
			opts.Intermediates.AddCert(cert)
		}
		_, errSystem := cs.PeerCertificates[0].Verify(opts) // nil Roots: the system pool
		if errSystem == nil {
			return nil
		}
		opts.Roots = extra
		_, err := cs.PeerCertificates[0].Verify(opts)
		return err
	}
	return cfg
}
