// Package tokens resolves the bearer tokens clients present: a well-formed
// token is introspected by identity-svc (behind a circuit breaker and a
// timeout), and the answer is cached by the token's SHA-256 for a few
// seconds, never past the internal token's expiry, and evicted when a
// token.revoked event arrives.
package tokens

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/sony/gobreaker/v2"
	"golang.org/x/sync/singleflight"

	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/libs/breaker"
)

// ErrInvalid is returned for a token that is missing, malformed, unknown,
// expired or revoked.
var ErrInvalid = errors.New("invalid token")

// ErrUnavailable is returned when identity-svc cannot answer.
var ErrUnavailable = errors.New("identity service unavailable")

// expiryMargin is how long before the internal token expires the cached
// answer stops being used, so a forwarded JWT never expires in flight.
const expiryMargin = 10 * time.Second

// Introspector resolves a token; *client.Client is one.
type Introspector interface {
	Introspect(ctx context.Context, token, requestID string) (*client.Introspection, error)
}

// Options tune a Resolver; zero fields take the defaults noted.
type Options struct {
	TTL         time.Duration    // positive answers (5 s)
	NegativeTTL time.Duration    // refused tokens (1 s)
	Timeout     time.Duration    // one introspection (2 s)
	Now         func() time.Time // time.Now
	Logger      *slog.Logger
}

// Resolved is a resolved token: identity-svc's answer and the
// Authorization header the gateway forwards with it, built once per
// answer rather than once per request (the internal token is 1.5-4 kB).
type Resolved struct {
	*client.Introspection
	// Authorization is "Bearer " and the internal token.
	Authorization string
}

// Resolver resolves tokens through an Introspector with a cache.
type Resolver struct {
	intro   Introspector
	breaker *gobreaker.CircuitBreaker[*client.Introspection]
	cache   *cache
	flight  singleflight.Group
	opts    Options
}

// NewResolver returns a resolver for intro.
func NewResolver(intro Introspector, opts Options) *Resolver {
	if opts.TTL <= 0 {
		opts.TTL = 5 * time.Second
	}
	if opts.NegativeTTL <= 0 || opts.NegativeTTL > time.Second {
		opts.NegativeTTL = time.Second
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 2 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	log := opts.Logger
	breaker := gobreaker.NewCircuitBreaker[*client.Introspection](gobreaker.Settings{
		Name:     "identity-introspect",
		Interval: 10 * time.Second,
		Timeout:  5 * time.Second,
		ReadyToTrip: func(c gobreaker.Counts) bool {
			return c.ConsecutiveFailures >= 5
		},
		// A refused token, and any other 4xx, is a healthy answer of
		// identity-svc (libs/breaker's rule: only no answer and 5xx count).
		IsSuccessful: func(err error) bool {
			if err == nil || errors.Is(err, client.ErrInvalidToken) {
				return true
			}
			status := client.StatusOf(err)
			return status != 0 && !breaker.Failure(status, nil)
		},
		OnStateChange: func(name string, from, to gobreaker.State) {
			log.Warn("circuit breaker state change", "breaker", name, "from", from.String(), "to", to.String())
		},
	})
	return &Resolver{intro: intro, breaker: breaker, cache: newCache(opts.TTL), opts: opts}
}

// Resolve returns what identity-svc knows about token: ErrInvalid when it
// refuses the token (or the token is malformed), ErrUnavailable when it
// cannot be asked.
func (r *Resolver) Resolve(ctx context.Context, token, requestID string) (*Resolved, error) {
	if !WellFormed(token) {
		return nil, ErrInvalid
	}
	key := Key(sha256.Sum256([]byte(token)))
	if e, ok := r.cache.get(key, r.opts.Now()); ok {
		if e.resolved == nil {
			return nil, ErrInvalid
		}
		return e.resolved, nil
	}
	// Concurrent requests with the same token share one introspection; it
	// runs detached from any one client's cancellation.
	v, err, _ := r.flight.Do(string(key[:]), func() (any, error) {
		return r.lookup(context.WithoutCancel(ctx), key, token, requestID)
	})
	if err != nil {
		return nil, err
	}
	return v.(*Resolved), nil
}

func (r *Resolver) lookup(ctx context.Context, key Key, token, requestID string) (*Resolved, error) {
	start := r.opts.Now()
	intro, err := r.breaker.Execute(func() (*client.Introspection, error) {
		ctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
		defer cancel()
		return r.intro.Introspect(ctx, token, requestID)
	})
	now := r.opts.Now()
	switch {
	case errors.Is(err, client.ErrInvalidToken):
		r.cache.put(key, nil, now.Add(r.opts.NegativeTTL), start, now)
		return nil, ErrInvalid
	case err != nil:
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	case intro == nil:
		return nil, fmt.Errorf("%w: empty introspection answer", ErrUnavailable)
	}
	expires := now.Add(r.opts.TTL)
	if limit := intro.InternalTokenExpiresAt.Add(-expiryMargin); limit.Before(expires) {
		expires = limit
	}
	resolved := &Resolved{Introspection: intro, Authorization: "Bearer " + intro.InternalToken}
	r.cache.put(key, resolved, expires, start, now)
	return resolved, nil
}

// Evict drops the cached answers of a token id (a revoked token) and keeps
// an answer already in flight from being cached. It returns how many
// entries it dropped.
func (r *Resolver) Evict(tokenID int64) int {
	return r.cache.evict(tokenID, r.opts.Now())
}
