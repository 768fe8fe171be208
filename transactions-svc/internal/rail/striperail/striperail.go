// Package striperail is the Stripe payment rail (contract section 13),
// through stripe-go: receivables are collected on Stripe Checkout,
// payables paid by a transfer to the recipient's Stripe connected account
// after Stripe-hosted onboarding. No card or account number ever reaches
// Paylane. Every call has a timeout, goes through a circuit breaker per
// rail (gobreaker, libs/breaker) and carries an idempotency key; a call
// without an answer is rail.ErrUnavailable and may be made again with the
// same key.
package striperail

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/stripe/stripe-go/v82"

	"github.com/paylane/paylane/libs/breaker"
	"github.com/paylane/paylane/transactions-svc/internal/rail"
)

// DefaultTimeout bounds each call to Stripe.
const DefaultTimeout = 10 * time.Second

// Config configures the client.
type Config struct {
	// APIBase is Stripe's API origin; empty is https://api.stripe.com (the
	// local stack and the tests point it at stripe-mock).
	APIBase string
	// Timeout bounds each call (DefaultTimeout when zero).
	Timeout time.Duration
	// HTTPClient carries the calls (a client of its own when nil).
	HTTPClient *http.Client
}

// Client reaches Stripe for every tenant's rail. It is safe for concurrent
// use; the keys are the tenants', passed per call.
type Client struct {
	backends *stripe.Backends
	timeout  time.Duration
	breakers *breaker.Set[struct{}]
}

// New returns a client.
func New(cfg Config) *Client {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: cfg.Timeout}
	}
	bc := &stripe.BackendConfig{
		HTTPClient: hc,
		// Retries are the caller's, with the same idempotency key; a call
		// stays within its timeout.
		MaxNetworkRetries: stripe.Int64(0),
		// stripe-go's own logging could carry request details: off.
		LeveledLogger:   &stripe.LeveledLogger{Level: stripe.LevelNull},
		EnableTelemetry: stripe.Bool(false),
	}
	if cfg.APIBase != "" {
		bc.URL = stripe.String(strings.TrimRight(cfg.APIBase, "/"))
	}
	return &Client{backends: stripe.NewBackendsWithConfig(bc), timeout: cfg.Timeout,
		breakers: breaker.New[struct{}](breaker.Settings{Name: "stripe"})}
}

// Mode is the mode a key belongs to: test for sk_test_ / rk_test_, live for
// sk_live_ / rk_live_, "" for anything else.
func Mode(key string) string {
	switch {
	case strings.HasPrefix(key, "sk_test_"), strings.HasPrefix(key, "rk_test_"):
		return "test"
	case strings.HasPrefix(key, "sk_live_"), strings.HasPrefix(key, "rk_live_"):
		return "live"
	}
	return ""
}

// CheckKey asks Stripe which account key belongs to: rail.ErrKeyRefused
// when Stripe refuses it (401, 403), rail.ErrUnavailable when Stripe does
// not answer. breakerKey scopes the circuit breaker (the tenant).
func (c *Client) CheckKey(ctx context.Context, breakerKey, key string) (string, error) {
	var acct *stripe.Account
	err := c.call(ctx, breakerKey, func(ctx context.Context) error {
		var err error
		acct, err = c.api(key).V1Accounts.Retrieve(ctx, &stripe.AccountRetrieveParams{})
		return err
	})
	var se *stripe.Error
	if errors.As(err, &se) && (se.HTTPStatusCode == http.StatusUnauthorized || se.HTTPStatusCode == http.StatusForbidden) {
		return "", rail.ErrKeyRefused
	}
	if err != nil {
		return "", unavailable(err)
	}
	return acct.ID, nil
}

// Adapter returns the rail.Adapter of one tenant's rail.
func (c *Client) Adapter(railID, key string) rail.Adapter {
	return &adapter{c: c, railID: railID, key: key}
}

func (c *Client) api(key string) *stripe.Client {
	return stripe.NewClient(key, stripe.WithBackends(c.backends))
}

// call runs fn within the timeout and the breaker of key. Stripe's 4xx
// answers (a refused card, a bad parameter) are not counted by the breaker
// and come back as they are; no answer, 429 and 5xx count.
func (c *Client) call(ctx context.Context, key string, fn func(context.Context) error) error {
	var refused error
	_, _, err := c.breakers.Do(key, func() (struct{}, int, error) {
		ctx, cancel := context.WithTimeout(ctx, c.timeout)
		defer cancel()
		err := fn(ctx)
		var se *stripe.Error
		if errors.As(err, &se) {
			if se.HTTPStatusCode >= 400 && se.HTTPStatusCode < 500 && se.HTTPStatusCode != http.StatusTooManyRequests {
				refused = err
				return struct{}{}, se.HTTPStatusCode, nil
			}
			return struct{}{}, max(se.HTTPStatusCode, http.StatusInternalServerError), err
		}
		return struct{}{}, 0, err
	})
	if refused != nil {
		return refused
	}
	return err
}

// unavailable turns a call's failure into rail.ErrUnavailable, keeping its
// text for the logs (never a key: stripe-go's messages carry none).
func unavailable(err error) error {
	return fmt.Errorf("%w: %w", rail.ErrUnavailable, err)
}

// refusal reads Stripe's refusal of an operation: ok is false when err is
// not one (the provider did not answer).
func refusal(err error) (reason string, ok bool) {
	var se *stripe.Error
	if !errors.As(err, &se) || se.HTTPStatusCode < 400 || se.HTTPStatusCode >= 500 || se.HTTPStatusCode == http.StatusTooManyRequests {
		return "", false
	}
	switch {
	case se.DeclineCode != "":
		return string(se.DeclineCode), true
	case se.Code != "":
		return string(se.Code), true
	}
	return "provider_error", true
}
