package clientcontract_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/transactions-svc/client"
	"github.com/paylane/paylane/transactions-svc/internal/testenv"
)

// limitOf returns the limit an ai_limit_exceeded error names, failing the
// test for any other answer.
func limitOf(t *testing.T, err error) string {
	t.Helper()
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Status != 422 || ce.Code != "ai_limit_exceeded" {
		t.Fatalf("got %v, want 422 ai_limit_exceeded", err)
	}
	var d struct {
		Limit string `json:"limit"`
	}
	if err := json.Unmarshal(ce.Details, &d); err != nil {
		t.Fatalf("details %s: %v", ce.Details, err)
	}
	return d.Limit
}

func int64p(v int64) *int64 { return &v }

// limitedTenant serves a fresh environment and returns its client, a new
// tenant, a token of that tenant carrying limits, and one of its contacts.
func limitedTenant(t *testing.T, limits authz.Limits) (env *testenv.Env, c *client.Client, tenant, token, contactID string) {
	t.Helper()
	env = testenv.New(t)
	c = client.New(env.Serve(t), nil)
	tenant = ids.New()
	token = env.TokenWithLimits(t, tenant, limits)
	return env, c, tenant, token, env.Contact(t, tenant, "c1", "Ada", "+14155550123").ID
}

// TestAIMaxAmount: prepare above limits.ai_max_amount is refused naming it;
// at the limit, or with a token of a tenant without it, it passes.
func TestAIMaxAmount(t *testing.T) {
	t.Parallel()
	env, c, tenant, token, contactID := limitedTenant(t, authz.Limits{AIMaxAmount: int64p(5000)})
	ctx := context.Background()

	_, err := c.Prepare(ctx, token, client.DraftInput{Direction: "receivable", ContactID: contactID, Amount: 5001}, "")
	if got := limitOf(t, err); got != "ai_max_amount" {
		t.Fatalf("limit %q, want ai_max_amount", got)
	}
	if _, err := c.Prepare(ctx, token, client.DraftInput{Direction: "payable", ContactID: contactID, Amount: 5000}, ""); err != nil {
		t.Fatalf("prepare at the limit: %v", err)
	}
	if _, err := c.Prepare(ctx, env.Token(t, tenant), client.DraftInput{Direction: "receivable", ContactID: contactID, Amount: 5001}, ""); err != nil {
		t.Fatalf("prepare without a limit: %v", err)
	}
}

// TestAIDailyAmount: the day's confirmed sum counts against
// limits.ai_daily_amount at prepare and, under the tenant's lock, at
// confirm: of two drafts that each fit but not together, concurrent
// confirms let exactly one through; the next UTC day starts from zero.
func TestAIDailyAmount(t *testing.T) {
	t.Parallel()
	env, c, _, token, contactID := limitedTenant(t, authz.Limits{AIDailyAmount: int64p(10000)})
	ctx := context.Background()
	prepare := func(amount int64) (*client.Draft, error) {
		return c.Prepare(ctx, token, client.DraftInput{Direction: "receivable", ContactID: contactID, Amount: amount}, "")
	}

	first, err := prepare(6000)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Confirm(ctx, token, first.TransactionID, nil, ""); err != nil {
		t.Fatalf("confirm within the day's limit: %v", err)
	}
	_, err = prepare(4001)
	if got := limitOf(t, err); got != "ai_daily_amount" {
		t.Fatalf("limit %q, want ai_daily_amount", got)
	}
	a, errA := prepare(4000)
	b, errB := prepare(4000)
	if errA != nil || errB != nil {
		t.Fatalf("drafts that each fit: %v, %v", errA, errB)
	}
	// Drafts count only once confirmed: both were accepted above.
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, d := range []*client.Draft{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = c.Confirm(ctx, token, d.TransactionID, nil, "")
		}()
	}
	wg.Wait()
	passed := 0
	for _, err := range errs {
		if err == nil {
			passed++
			continue
		}
		if got := limitOf(t, err); got != "ai_daily_amount" {
			t.Fatalf("limit %q, want ai_daily_amount", got)
		}
	}
	if passed != 1 {
		t.Fatalf("%d concurrent confirms passed, want exactly 1 (errors %v)", passed, errs)
	}

	env.Clock.Advance(24 * time.Hour)
	next, err := prepare(10000)
	if err != nil {
		t.Fatalf("prepare on the next UTC day: %v", err)
	}
	if _, err := c.Confirm(ctx, token, next.TransactionID, nil, ""); err != nil {
		t.Fatalf("confirm on the next UTC day: %v", err)
	}
}
