package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paylane/paylane/identity-svc/client"
)

const (
	// serviceDBConns is the pool size the devstack gives every service
	// (DB_MAX_CONNS); the baseline's pools are the same size.
	serviceDBConns = 10
	// benchRequestsPerMinute is the demo tenant's API limit during the run:
	// high enough that the limiter never answers (identity-svc's maximum).
	benchRequestsPerMinute = 1_000_000
	// seedWorkers create the read benchmark's contacts concurrently.
	seedWorkers = 16
)

// phones hands out distinct valid US numbers (+1 415 2000000 to 9999999),
// starting at a random offset so runs against the same database rarely meet.
type phones struct {
	base uint64
	next atomic.Uint64
}

func newPhones() *phones {
	n, err := rand.Int(rand.Reader, big.NewInt(phoneRange))
	if err != nil {
		return &phones{}
	}
	return &phones{base: n.Uint64()}
}

const phoneRange = 8_000_000

// take returns the next number.
func (p *phones) take() string {
	n := (p.base + p.next.Add(1)) % phoneRange
	return fmt.Sprintf("+1415%07d", 2_000_000+n)
}

// raiseLimit sets the demo tenant's api_requests_per_minute through the
// admin API and waits until the gateway enforces it (its introspection
// cache holds the old limits for up to TOKEN_CACHE_TTL).
func (b *bench) raiseLimit(ctx context.Context) error {
	admin := client.NewAdmin(b.env.AdminURL, b.env.AdminToken, b.client)
	limit := benchRequestsPerMinute
	if _, err := admin.UpdateTenant(ctx, b.env.DemoTenantID, client.TenantInput{
		Limits: &client.LimitsInput{APIRequestsPerMinute: &limit},
	}); err != nil {
		return fmt.Errorf("raising the demo tenant's request limit: %w", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := b.do(ctx, http.MethodGet, "/api/v1/contacts?per_page=1", nil, "")
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.Header.Get("X-RateLimit-Limit") == strconv.Itoa(limit) {
			b.logf("demo tenant limited to %d requests per minute", limit)
			return nil
		}
		time.Sleep(500 * time.Millisecond)
	}
	return errors.New("the gateway did not apply the raised request limit within 30 s")
}

// do sends an authenticated request to the gateway.
func (b *bench) do(ctx context.Context, method, path string, body []byte, idemKey string) (*http.Response, error) {
	req, err := b.apiRequest(ctx, method, path, body, idemKey)
	if err != nil {
		return nil, err
	}
	resp, err := b.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	return resp, nil
}

// apiRequest builds an authenticated gateway request.
func (b *bench) apiRequest(ctx context.Context, method, path string, body []byte, idemKey string) (*http.Request, error) {
	return newRequest(ctx, method, b.env.GatewayURL+path, body, b.env.DemoToken, idemKey)
}

// newRequest builds a JSON request with a bearer token and an
// Idempotency-Key when they are not empty.
func newRequest(ctx context.Context, method, url string, body []byte, token, idemKey string) (*http.Request, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, r)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if idemKey != "" {
		req.Header.Set("Idempotency-Key", idemKey)
	}
	return req, nil
}

// contactBody is a new contact with the next phone number.
func (b *bench) contactBody(tag string) []byte {
	body, _ := json.Marshal(map[string]string{
		"first_name": "Bench", "last_name": tag, "phone": b.phones.take(), "email": tag + "@example.com",
	})
	return body
}

// seed creates the read benchmark's contacts through the API.
func (b *bench) seed(ctx context.Context) error {
	start := time.Now()
	n := b.cfg.contacts
	ids := make([]string, n)
	errs := make([]error, seedWorkers)
	var wg sync.WaitGroup
	for w := range seedWorkers {
		wg.Go(func() {
			for i := w; i < n && errs[w] == nil; i += seedWorkers {
				ids[i], errs[w] = b.createContact(ctx, "seed"+strconv.Itoa(i))
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("seeding contacts: %w", err)
	}
	b.contactIDs = ids
	b.logf("created %d contacts in %s", n, time.Since(start).Round(time.Millisecond))
	return nil
}

// createContact creates one contact and returns its id.
func (b *bench) createContact(ctx context.Context, tag string) (string, error) {
	resp, err := b.do(ctx, http.MethodPost, "/api/v1/contacts", b.contactBody(tag), "")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", fmt.Errorf("reading the answer: %w", err)
	}
	if resp.StatusCode != http.StatusCreated {
		return "", fmt.Errorf("POST /api/v1/contacts: %d %s", resp.StatusCode, data)
	}
	var out struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(data, &out); err != nil || out.Data.ID == "" {
		return "", fmt.Errorf("POST /api/v1/contacts answered %s", data)
	}
	return out.Data.ID, nil
}
