package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/paylane/paylane/libs/events"
)

// endpointState is the part of a webhook endpoint the scenario reads.
type endpointState struct {
	IsActive            bool    `json:"is_active"`
	ConsecutiveFailures int     `json:"consecutive_failures"`
	DisabledAt          *string `json:"disabled_at"`
}

func (t *tenant) endpointState(ctx context.Context, id string) (endpointState, error) {
	var st endpointState
	a := t.api(ctx, http.MethodGet, "/api/v1/webhook-endpoints/"+id, "", nil)
	if !a.ok() {
		return st, fmt.Errorf("reading endpoint %s: %d %s", id, a.status, a.body)
	}
	return st, a.data(&st)
}

// failingEndpoint registers an endpoint subscribed to contact.created at a
// receiver that answers 500.
func (t *tenant) failingEndpoint(ctx context.Context) (*receiver, string, error) {
	rc, err := newReceiver(t.e.info.Root + "/tls")
	if err != nil {
		return nil, "", err
	}
	rc.fail.Store(true)
	body, _ := json.Marshal(map[string]any{"name": "failing receiver", "url": rc.url, "subscribed_events": []string{events.TypeContactCreated}})
	a := t.api(ctx, http.MethodPost, "/api/v1/webhook-endpoints", "", body)
	if a.status != http.StatusCreated {
		rc.close()
		return nil, "", fmt.Errorf("creating an endpoint: %d %s", a.status, a.body)
	}
	return rc, a.dataID(), nil
}

// runWebhook points two endpoints at receivers that fail every request and
// creates 12 contacts (12 deliveries each, up to 8 attempts apiece, on a
// schedule compressed by WEBHOOK_RETRY_TIME_SCALE). The first endpoint is
// disabled at exactly 50 consecutive failures and gets nothing after; the
// second's receiver starts answering 200 once it has failed 30 times, which
// resets its count. No attempt comes earlier than the schedule says.
func runWebhook(ctx context.Context, e *env) (result, error) {
	t, err := e.newTenant(ctx, "chaos webhook")
	if err != nil {
		return result{}, err
	}
	defer t.rc.close()
	rcA, epA, err := t.failingEndpoint(ctx)
	if err != nil {
		return result{}, err
	}
	defer rcA.close()
	rcB, epB, err := t.failingEndpoint(ctx)
	if err != nil {
		return result{}, err
	}
	defer rcB.close()
	for range 12 {
		t.record(ctx, kindContactCreate, http.MethodPost, "/api/v1/contacts",
			map[string]any{"first_name": "Hook", "phone": e.phone(), "external_id": "chaos-hook-" + fmt.Sprint(time.Now().UnixNano())}, "")
	}
	var fails []string
	// B recovers once it has failed 30 times in a row.
	recovered := false
	var a endpointState
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		if !recovered {
			if b, err := t.endpointState(ctx, epB); err == nil && b.ConsecutiveFailures >= 30 {
				rcB.fail.Store(false)
				recovered = true
				e.logf("webhook: second receiver answers 200 from now on (it had failed %d times in a row)", b.ConsecutiveFailures)
			}
		}
		if a, err = t.endpointState(ctx, epA); err == nil && !a.IsActive {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(3 * time.Second) // anything sent after the disable arrives meanwhile
	var r result
	attemptsA := len(rcA.attemptTimes())
	r.note("first endpoint: is_active %t, consecutive_failures %d, disabled_at set %t, requests received %d",
		a.IsActive, a.ConsecutiveFailures, a.DisabledAt != nil, attemptsA)
	if a.IsActive || a.DisabledAt == nil || a.ConsecutiveFailures != 50 || attemptsA != 50 {
		fails = append(fails, "the first endpoint was not disabled at exactly 50 consecutive failures")
	}
	b, err := t.endpointState(ctx, epB)
	if err != nil {
		return r, err
	}
	r.note("second endpoint: is_active %t, consecutive_failures %d after its receiver recovered (recovered: %t)",
		b.IsActive, b.ConsecutiveFailures, recovered)
	if !recovered || !b.IsActive || b.ConsecutiveFailures != 0 {
		fails = append(fails, "a success before 50 did not reset the second endpoint's count")
	}
	early := checkSchedule(rcA.attemptsByID())
	r.note("retry gaps checked against the compressed schedule (×%g, ±10%% jitter): %d early", retryTimeScale, len(early))
	if len(early) > 0 {
		fails = append(fails, fmt.Sprintf("attempts earlier than the schedule: %v", early[:min(5, len(early))]))
	}
	checked := t.check(ctx)
	checked.details = append(r.details, checked.details...)
	for _, f := range fails {
		checked.fail("%s", f)
	}
	return checked, nil
}

// checkSchedule returns the retries that came before their wait (the
// schedule compressed, less 10 % jitter, less 20 ms of clock slack).
func checkSchedule(byID map[string][]time.Time) []string {
	var early []string
	for id, ts := range byID {
		for i := 1; i < len(ts) && i-1 < len(retrySchedule); i++ {
			min := time.Duration(float64(retrySchedule[i-1])*retryTimeScale*0.9) - 20*time.Millisecond
			if gap := ts[i].Sub(ts[i-1]); gap < min {
				early = append(early, fmt.Sprintf("%s retry %d after %s, want ≥ %s", id, i, gap, min))
			}
		}
	}
	return early
}
