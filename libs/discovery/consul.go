package discovery

import (
	"fmt"
	"net/http"

	"github.com/hashicorp/consul/api"
)

// Consul registers the running service with a Consul agent.
type Consul struct {
	client *api.Client
}

// Option configures a Consul registrar.
type Option func(*consulOptions)

type consulOptions struct {
	token      string
	httpClient *http.Client
}

// WithToken sets the ACL token sent to Consul (CONSUL_HTTP_TOKEN).
func WithToken(token string) Option { return func(o *consulOptions) { o.token = token } }

// WithHTTPClient sets the HTTP client used to talk to Consul.
func WithHTTPClient(c *http.Client) Option { return func(o *consulOptions) { o.httpClient = c } }

// NewConsul returns a registrar talking to the Consul agent at addr
// ("127.0.0.1:8500" or "http://consul:8500").
func NewConsul(addr string, opts ...Option) (*Consul, error) {
	var o consulOptions
	for _, opt := range opts {
		opt(&o)
	}
	if addr == "" {
		return nil, fmt.Errorf("consul: empty agent address")
	}
	client, err := api.NewClient(&api.Config{Address: addr, Token: o.token, HttpClient: o.httpClient})
	if err != nil {
		return nil, fmt.Errorf("consul: creating client: %w", err)
	}
	return &Consul{client: client}, nil
}
