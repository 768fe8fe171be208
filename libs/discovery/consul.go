package discovery

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/hashicorp/consul/api"
)

// Consul resolves services to healthy instances registered in Consul and
// registers the running service. Each service it is asked about gets one
// watch: a goroutine that keeps the healthy instances in a cache with
// Consul's blocking queries, so Resolve answers from memory. When Consul
// cannot be reached the last known instances stay in use.
type Consul struct {
	client *api.Client
	opts   consulOptions

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	closed  bool
	watches map[string]*watch
}

// Option configures a Consul resolver.
type Option func(*consulOptions)

type consulOptions struct {
	token      string
	httpClient *http.Client
	scheme     string
	tag        string
	wait       time.Duration
	minRetry   time.Duration
	maxRetry   time.Duration
	log        *slog.Logger
}

// WithToken sets the ACL token sent to Consul (CONSUL_HTTP_TOKEN).
func WithToken(token string) Option { return func(o *consulOptions) { o.token = token } }

// WithHTTPClient sets the HTTP client used to talk to Consul.
func WithHTTPClient(c *http.Client) Option { return func(o *consulOptions) { o.httpClient = c } }

// WithScheme sets the scheme of resolved base URLs (default "http").
func WithScheme(scheme string) Option { return func(o *consulOptions) { o.scheme = scheme } }

// WithTag resolves only instances carrying tag.
func WithTag(tag string) Option { return func(o *consulOptions) { o.tag = tag } }

// WithWaitTime sets how long one blocking query may wait for a change
// (default 5 minutes; Consul caps it at 10).
func WithWaitTime(d time.Duration) Option { return func(o *consulOptions) { o.wait = d } }

// WithRetry sets the first and the longest pause after a failed query
// (defaults 250 ms and 30 s; the pause doubles after each failure).
func WithRetry(first, longest time.Duration) Option {
	return func(o *consulOptions) { o.minRetry, o.maxRetry = first, longest }
}

// WithLogger sets the logger for watch failures (default: discard).
func WithLogger(log *slog.Logger) Option { return func(o *consulOptions) { o.log = log } }

// NewConsul returns a resolver and registrar talking to the Consul agent at
// addr ("127.0.0.1:8500" or "http://consul:8500"). Close stops its watches.
func NewConsul(addr string, opts ...Option) (*Consul, error) {
	o := consulOptions{
		scheme:   "http",
		wait:     5 * time.Minute,
		minRetry: 250 * time.Millisecond,
		maxRetry: 30 * time.Second,
		log:      slog.New(slog.DiscardHandler),
	}
	for _, opt := range opts {
		opt(&o)
	}
	if addr == "" {
		return nil, fmt.Errorf("consul: empty agent address")
	}
	if o.minRetry <= 0 || o.maxRetry < o.minRetry {
		return nil, fmt.Errorf("consul: invalid retry bounds %s..%s", o.minRetry, o.maxRetry)
	}
	client, err := api.NewClient(&api.Config{Address: addr, Token: o.token, HttpClient: o.httpClient})
	if err != nil {
		return nil, fmt.Errorf("consul: creating client: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Consul{client: client, opts: o, ctx: ctx, cancel: cancel, watches: map[string]*watch{}}, nil
}

// Resolve implements Resolver: the base URL of one healthy instance of
// service, chosen round-robin. The first call for a service waits for
// Consul's first answer; later calls answer from the cache.
func (c *Consul) Resolve(ctx context.Context, service string) (string, error) {
	w, err := c.watchFor(service)
	if err != nil {
		return "", err
	}
	select {
	case <-w.ready:
	case <-ctx.Done():
		return "", fmt.Errorf("resolving %q: %w", service, ctx.Err())
	}
	return w.pick(service)
}

// Close stops every watch and waits for them to end. Resolve fails with
// ErrClosed afterwards; Register and Deregister keep working.
func (c *Consul) Close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.cancel()
	c.wg.Wait()
}

func (c *Consul) watchFor(service string) (*watch, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, fmt.Errorf("resolving %q: %w", service, ErrClosed)
	}
	if w, ok := c.watches[service]; ok {
		return w, nil
	}
	w := &watch{ready: make(chan struct{})}
	c.watches[service] = w
	c.wg.Add(1)
	go c.run(service, w)
	return w, nil
}
