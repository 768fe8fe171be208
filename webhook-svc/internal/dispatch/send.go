package dispatch

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"code.dny.dev/ssrf"

	"github.com/paylane/paylane/webhook-svc/internal/signature"
)

// maxErrorLength bounds the error text kept on an attempt.
const maxErrorLength = 300

// userAgent identifies deliveries to receivers.
const userAgent = "Paylane-Webhooks/1.0"

// result is the outcome of one HTTP attempt.
type result struct {
	ok         bool
	status     *int
	err        string
	retryAfter time.Duration
}

// send POSTs body to url signed with keys, as of ts.
func (d *Dispatcher) send(ctx context.Context, client *http.Client, target, eventID string, ts time.Time, body []byte, keys [][]byte) result {
	ctx, cancel := context.WithTimeout(ctx, d.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return result{err: "invalid endpoint URL"}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", userAgent)
	signature.SetHeaders(req.Header, eventID, ts, body, keys...)
	resp, err := client.Do(req)
	if err != nil {
		return result{err: d.describe(err)}
	}
	// Drain (a little) so the connection goes back to the pool.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	status := resp.StatusCode
	r := result{status: &status, ok: status >= 200 && status < 300}
	switch {
	case r.ok:
	case status >= 300 && status < 400:
		r.err = fmt.Sprintf("HTTP %d: redirects are not followed", status)
	default:
		r.err = fmt.Sprintf("HTTP %d", status)
	}
	if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
		r.retryAfter = retryAfter(resp.Header.Get("Retry-After"), ts)
	}
	return r
}

// retryAfter reads a Retry-After value: delay seconds or an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// describe turns a transport error into the text shown on the attempt:
// short, and free of anything but what the tenant's own URL implies.
func (d *Dispatcher) describe(err error) string {
	var (
		netErr  net.Error
		unknown x509.UnknownAuthorityError
		host    x509.HostnameError
		certErr *tls.CertificateVerificationError
	)
	switch {
	case errors.Is(err, ssrf.ErrProhibitedIP), errors.Is(err, ssrf.ErrProhibitedPort), errors.Is(err, ssrf.ErrProhibitedNetwork):
		return "destination address not allowed (private, loopback, link-local or reserved)"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return fmt.Sprintf("timed out after %s", d.opts.Timeout)
	case errors.As(err, &unknown), errors.As(err, &host), errors.As(err, &certErr):
		return truncate("TLS: " + innermost(err).Error())
	}
	return truncate(innermost(err).Error())
}

// innermost drops url.Error's "Post <url>:" prefix.
func innermost(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

func truncate(s string) string {
	if len(s) > maxErrorLength {
		return s[:maxErrorLength]
	}
	return s
}
