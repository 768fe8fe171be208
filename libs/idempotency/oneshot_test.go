package idempotency_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/paylane/paylane/libs/idempotency"
)

// A fresh key under Wrap runs the handler once, one-shot; its replay runs
// the one-shot attempt, which fails on the stored key, and answers the
// stored response without running the handler again.
func TestOneShotRunsOnceAndReplays(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, idempotency.Speculate())
	first := e.post(t, tenantA, "key-one", `{"name":"a"}`)
	if first.status != 201 {
		t.Fatalf("first = %d %s", first.status, first.body)
	}
	if runs := e.oneShotRuns(); !slices.Equal(runs, []bool{true}) {
		t.Fatalf("handler runs (one-shot?) = %v, want [true]", runs)
	}
	second := e.post(t, tenantA, "key-one", `{"name":"a"}`)
	if second.status != 201 || string(second.body) != string(first.body) || second.header.Get(idempotency.HeaderReplayed) != "true" {
		t.Fatalf("replay = %d %s (replayed %q)", second.status, second.body, second.header.Get(idempotency.HeaderReplayed))
	}
	if runs := e.oneShotRuns(); !slices.Equal(runs, []bool{true, true}) {
		t.Errorf("handler runs after the replay = %v, want [true true] (the attempt, then no run)", runs)
	}
	if n, k := e.count(t, tenantA), e.keys(t, tenantA); n != 1 || k != 1 {
		t.Errorf("things = %d, keys = %d; want 1 and 1", n, k)
	}
	conflict := e.post(t, tenantA, "key-one", `{"name":"b"}`)
	if conflict.status != 409 || conflict.code() != "idempotency_conflict" {
		t.Errorf("other body = %d %s, want 409 idempotency_conflict", conflict.status, conflict.body)
	}
}

// When a one-shot statement refuses its assumption, nothing of the attempt
// commits and the handler runs again the usual way: its answer is the one
// stored and sent.
func TestOneShotRefusedRunsAgain(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, idempotency.Speculate())
	r := e.post(t, tenantA, "key-refused", `{"name":"r","refuse":true}`)
	if r.status != 201 || r.header.Get(idempotency.HeaderReplayed) != "" {
		t.Fatalf("refused one-shot = %d %s", r.status, r.body)
	}
	if runs := e.oneShotRuns(); !slices.Equal(runs, []bool{true, false}) {
		t.Fatalf("handler runs (one-shot?) = %v, want [true false]", runs)
	}
	var body struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(r.body, &body); err != nil || body.Data.ID == "" {
		t.Fatalf("body %s: %v", r.body, err)
	}
	if n, k := e.count(t, tenantA), e.keys(t, tenantA); n != 1 || k != 1 {
		t.Fatalf("things = %d, keys = %d; want 1 and 1", n, k)
	}
	replay := e.post(t, tenantA, "key-refused", `{"name":"r","refuse":true}`)
	if replay.status != 201 || string(replay.body) != string(r.body) {
		t.Errorf("replay = %d %s, want the stored %s", replay.status, replay.body, r.body)
	}
}

// A request without a key runs the handler once, outside any one-shot.
func TestOneShotWithoutKeyRunsTheHandler(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, idempotency.Speculate())
	if r := e.post(t, tenantA, "", `{"name":"a"}`); r.status != 201 {
		t.Fatalf("without key = %d %s", r.status, r.body)
	}
	if runs := e.oneShotRuns(); !slices.Equal(runs, []bool{false}) {
		t.Errorf("handler runs (one-shot?) = %v, want [false]", runs)
	}
	if n, k := e.count(t, tenantA), e.keys(t, tenantA); n != 1 || k != 0 {
		t.Errorf("things = %d, keys = %d; want 1 and 0", n, k)
	}
}
