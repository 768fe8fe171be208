package apifuzz

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// Request is one request to send. Path is the request target below the
// gateway's origin, already escaped (/api/v1/contacts/x?page=1). When Raw
// is set it is written as is on a fresh TLS connection instead (the
// request line and headers included), then the write side is closed.
type Request struct {
	Method  string
	Path    string
	Header  map[string]string
	Body    []byte
	HasBody bool
	Raw     []byte
	Op      string // operationId, for reports
	Kind    string // the mutation, for reports
}

// Answer is a read response; Err is set when none came (a timeout counts
// as hung, Hung is then true).
type Answer struct {
	Status int
	Header http.Header
	Body   []byte
	Err    error
	Hung   bool
}

// Client sends requests to a gateway.
type Client struct {
	BaseURL string // https://localhost:port
	HTTP    *http.Client
	tlsConf *tls.Config
	timeout time.Duration
}

// NewClient is a client of the gateway at baseURL trusting the CA in
// caFile, with a per-request timeout (a request still unanswered after it
// is hung).
func NewClient(baseURL, caFile string, timeout time.Duration, conns int) (*Client, error) {
	conf := &tls.Config{}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s holds no certificate", caFile)
		}
		conf.RootCAs = pool
	}
	tr := &http.Transport{TLSClientConfig: conf, MaxIdleConnsPerHost: max(conns, 2), MaxIdleConns: max(conns, 2) * 2}
	return &Client{
		BaseURL: strings.TrimRight(baseURL, "/"),
		HTTP:    &http.Client{Timeout: timeout, Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		tlsConf: conf,
		timeout: timeout,
	}, nil
}

// Close drops idle connections.
func (c *Client) Close() { c.HTTP.CloseIdleConnections() }

// Do sends r and reads the answer whole.
func (c *Client) Do(ctx context.Context, r Request) Answer {
	if r.Raw != nil {
		return c.raw(ctx, r.Raw)
	}
	var body io.Reader
	if r.HasBody {
		body = bytes.NewReader(r.Body)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, c.BaseURL+"/", body)
	if err != nil {
		return Answer{Err: err}
	}
	// The path is sent as written: the fuzz cases carry their own escapes.
	u, err := url.Parse(c.BaseURL)
	if err != nil {
		return Answer{Err: err}
	}
	req.URL = &url.URL{Scheme: u.Scheme, Host: u.Host, Opaque: pathOnly(r.Path), RawQuery: queryOnly(r.Path)}
	req.Header.Set("Accept", "application/json")
	for k, v := range r.Header {
		if strings.EqualFold(k, "Host") {
			req.Host = v
			continue
		}
		req.Header[http.CanonicalHeaderKey(k)] = []string{v}
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return Answer{Err: err, Hung: isTimeout(err)}
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return Answer{Status: resp.StatusCode, Header: resp.Header, Err: err, Hung: isTimeout(err)}
	}
	return Answer{Status: resp.StatusCode, Header: resp.Header, Body: out}
}

func pathOnly(p string) string {
	if i := strings.IndexByte(p, '?'); i >= 0 {
		return p[:i]
	}
	return p
}

func queryOnly(p string) string {
	if i := strings.IndexByte(p, '?'); i >= 0 {
		return p[i+1:]
	}
	return ""
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// raw writes b on a new TLS connection, closes the write side and reads
// one response.
func (c *Client) raw(ctx context.Context, b []byte) Answer {
	u, err := url.Parse(c.BaseURL)
	if err != nil {
		return Answer{Err: err}
	}
	d := tls.Dialer{Config: c.tlsConf.Clone()}
	d.Config.ServerName = u.Hostname()
	dctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	conn, err := d.DialContext(dctx, "tcp", u.Host)
	if err != nil {
		return Answer{Err: err, Hung: isTimeout(err)}
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(c.timeout))
	b = bytes.ReplaceAll(bytes.ReplaceAll(b, []byte("{host}"), []byte(u.Host)), []byte("{hostname}"), []byte(u.Host))
	// A server may answer and close before it has read all of a request
	// it refuses (a header too large): the answer is read even when the
	// write fails.
	_, werr := conn.Write(b)
	if werr == nil {
		_ = conn.(*tls.Conn).CloseWrite()
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		if werr != nil {
			err = fmt.Errorf("writing: %v; reading: %w", werr, err)
		}
		return Answer{Err: err, Hung: isTimeout(err)}
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return Answer{Status: resp.StatusCode, Header: resp.Header, Err: err, Hung: isTimeout(err)}
	}
	return Answer{Status: resp.StatusCode, Header: resp.Header, Body: out}
}

// Envelope is the error body every 4xx and 5xx carries.
type Envelope struct {
	Error struct {
		Code      string          `json:"code"`
		Message   *string         `json:"message"`
		RequestID string          `json:"request_id"`
		Details   json.RawMessage `json:"details"`
	} `json:"error"`
}

// EnvelopeProblem returns why a's body is not the error envelope with
// error.request_id equal to X-Request-Id, or "" when it is.
func EnvelopeProblem(a Answer) string {
	var env Envelope
	if err := json.Unmarshal(a.Body, &env); err != nil {
		return "body is not JSON"
	}
	switch {
	case env.Error.Code == "":
		return "no error.code"
	case env.Error.Message == nil:
		return "no error.message"
	case env.Error.RequestID == "":
		return "no error.request_id"
	case a.Header.Get("X-Request-Id") == "":
		return "no X-Request-Id header"
	case a.Header.Get("X-Request-Id") != env.Error.RequestID:
		return "error.request_id differs from X-Request-Id"
	}
	return ""
}
