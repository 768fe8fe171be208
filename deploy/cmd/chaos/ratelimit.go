package main

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/libs/authz"
)

// runRateLimit sends 120 requests with one token limited to 60 a minute,
// alternately through two gateway replicas that share Redis, as fast as
// the machine allows: exactly 60 are answered (not 429).
func runRateLimit(ctx context.Context, e *env) (result, error) {
	var r result
	if len(e.info.GatewayURLs) < 2 {
		return r, errors.New("needs two gateway replicas sharing Redis (redis-server is missing)")
	}
	name, limit, region := "chaos rate limit", 60, "US"
	ten, err := e.admin.CreateTenant(ctx, client.TenantInput{Name: &name, DefaultRegion: &region,
		Limits: &client.LimitsInput{APIRequestsPerMinute: &limit}})
	if err != nil {
		return r, err
	}
	tok, err := e.admin.CreateToken(ctx, ten.ID, client.TokenInput{Name: "chaos", Abilities: authz.All()})
	if err != nil {
		return r, err
	}
	// Open the connections first (TLS handshakes), without the token.
	for _, u := range e.info.GatewayURLs {
		for range 8 {
			do(ctx, e.hc, u, "", http.MethodGet, "/api/v1/healthcheck/app", "", nil)
		}
	}
	var ok, limited, other atomic.Int64
	var wg sync.WaitGroup
	next := atomic.Int64{}
	began := time.Now()
	for range 16 {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= 120 {
					return
				}
				base := e.info.GatewayURLs[i%2]
				a := do(ctx, e.hc, base, tok.Token, http.MethodGet, "/api/v1/openapi.json", "", nil)
				switch {
				case a.status == http.StatusTooManyRequests:
					limited.Add(1)
				case a.status == http.StatusOK:
					ok.Add(1)
				default:
					other.Add(1)
				}
			}
		})
	}
	wg.Wait()
	took := time.Since(began)
	r.note("120 requests in %s through %d replicas: %d answered 200, %d answered 429, %d other",
		took.Round(time.Millisecond), len(e.info.GatewayURLs), ok.Load(), limited.Load(), other.Load())
	if ok.Load() != 60 || other.Load() != 0 {
		r.fail("%d answered (not 429), want exactly 60 across both replicas", ok.Load()+other.Load())
	}
	return r, nil
}
