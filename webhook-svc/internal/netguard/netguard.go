// Package netguard builds the HTTP transport webhook deliveries go out on:
// every connection's address is checked when dialling (after DNS, so a name
// that resolves to a private address is refused too) with code.dny.dev/ssrf,
// which refuses private, loopback, link-local (cloud metadata included),
// CGNAT and the other special-purpose ranges, except prefixes an operator
// allows. No proxy is used and redirects are never followed.
package netguard

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"code.dny.dev/ssrf"
)

// ErrProhibited reports a destination the guard refused; errors.Is matches
// it on a refused delivery's error.
var ErrProhibited = ssrf.ErrProhibitedIP

// Options configure the transport.
type Options struct {
	// Allow lists prefixes that may be dialled although the guard would
	// refuse them (WEBHOOK_ALLOW_CIDRS); empty allows none.
	Allow []netip.Prefix
	// RootCAs are the trusted roots; nil means the system's.
	RootCAs *x509.CertPool
	// MaxConnsPerEndpoint bounds the connections to one endpoint.
	MaxConnsPerEndpoint int
	// Resolve, when set, looks host names up instead of the system
	// resolver (tests stand in a DNS answer that changes between the
	// endpoint's creation and its delivery). Every address it returns is
	// still checked when dialled.
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
}

// NewTransport returns a transport for one endpoint.
func NewTransport(o Options) *http.Transport {
	var v4, v6 []netip.Prefix
	for _, p := range o.Allow {
		if p.Addr().Is4() {
			v4 = append(v4, p)
		} else {
			v6 = append(v6, p)
		}
	}
	guard := ssrf.New(ssrf.WithAnyPort(), ssrf.WithAllowedV4Prefixes(v4...), ssrf.WithAllowedV6Prefixes(v6...))
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: guard.Safe}
	dial := dialer.DialContext
	if o.Resolve != nil {
		dial = resolvingDial(dialer, o.Resolve)
	}
	return &http.Transport{
		Proxy:                 nil,
		DialContext:           dial,
		TLSClientConfig:       &tls.Config{RootCAs: o.RootCAs, MinVersion: tls.VersionTLS12},
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          o.MaxConnsPerEndpoint,
		MaxIdleConnsPerHost:   o.MaxConnsPerEndpoint,
		MaxConnsPerHost:       o.MaxConnsPerEndpoint,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 15 * time.Second,
		DisableCompression:    true,
	}
}

// resolvingDial dials the addresses resolve gives for a host name, in
// order, through dialer (whose Control refuses the prohibited ones); an
// address literal is dialled as it is.
func resolvingDial(dialer *net.Dialer, resolve func(context.Context, string) ([]netip.Addr, error)) func(context.Context, string, string) (net.Conn, error) {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(address)
		if err != nil {
			return nil, err
		}
		if _, err := netip.ParseAddr(host); err == nil {
			return dialer.DialContext(ctx, network, address)
		}
		addrs, err := resolve(ctx, host)
		if err != nil {
			return nil, fmt.Errorf("resolving %s: %w", host, err)
		}
		if len(addrs) == 0 {
			return nil, fmt.Errorf("resolving %s: no addresses", host)
		}
		var errs []error
		for _, a := range addrs {
			conn, err := dialer.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
			if err == nil {
				return conn, nil
			}
			errs = append(errs, err)
		}
		return nil, errors.Join(errs...)
	}
}

// NewClient returns a client on t that never follows a redirect: the 3xx
// response itself comes back (and counts as a failed attempt).
func NewClient(t http.RoundTripper, timeout time.Duration) *http.Client {
	return &http.Client{
		Transport: t,
		Timeout:   timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// ParseAllow parses a comma-separated list of CIDR prefixes or single
// addresses ("127.0.0.0/8,::1").
func ParseAllow(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if !strings.Contains(part, "/") {
			a, err := netip.ParseAddr(part)
			if err != nil {
				return nil, fmt.Errorf("allow-list entry %q: %w", part, err)
			}
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(part)
		if err != nil {
			return nil, fmt.Errorf("allow-list entry %q: %w", part, err)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// RootCAs returns the system roots plus the PEM certificates in extra.
func RootCAs(extra []byte) (*x509.CertPool, error) {
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if len(extra) > 0 && !pool.AppendCertsFromPEM(extra) {
		return nil, errors.New("no PEM certificate found in the extra CA file")
	}
	return pool, nil
}
