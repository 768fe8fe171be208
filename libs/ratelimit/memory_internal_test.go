package ratelimit

import (
	"context"
	"strconv"
	"testing"
	"time"
)

func TestMemoryEvictsIdleKeys(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := NewMemory(func() time.Time { return now }).(*memory)
	ctx := context.Background()
	for i := range 100 {
		if _, err := m.Allow(ctx, "ip:"+strconv.Itoa(i), 30); err != nil {
			t.Fatal(err)
		}
	}
	if n := m.size(); n != 100 {
		t.Fatalf("keys = %d, want 100", n)
	}
	// Every key refills within 2 s at 30/min; a call a minute later sweeps.
	now = now.Add(time.Minute)
	if _, err := m.Allow(ctx, "ip:active", 30); err != nil {
		t.Fatal(err)
	}
	if n := m.size(); n != 1 {
		t.Errorf("keys after sweep = %d, want 1 (only the active key)", n)
	}
}

func (m *memory) size() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.tats)
}
