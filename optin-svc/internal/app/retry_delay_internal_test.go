package app

import (
	"testing"
	"time"
)

// TestRetryDelay: the wait before the next provider call after a transient
// error doubles from the base per attempt made, is at least what the
// provider asked for (Retry-After) and at most maxRetryDelay.
func TestRetryDelay(t *testing.T) {
	t.Parallel()
	a := &App{sending: Sending{RetryBase: 2 * time.Second}}
	tests := []struct {
		name     string
		attempts int
		asked    time.Duration
		want     time.Duration
	}{
		{"after the first call", 1, 0, 2 * time.Second},
		{"after the second call", 2, 0, 4 * time.Second},
		{"after the fifth call", 5, 0, 32 * time.Second},
		{"the provider asks for longer", 1, 7 * time.Second, 7 * time.Second},
		{"the provider asks for less", 3, time.Second, 8 * time.Second},
		{"the provider asks for hours", 1, 3 * time.Hour, maxRetryDelay},
		{"many calls", 40, 0, maxRetryDelay},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := a.retryDelay(tt.attempts, tt.asked); got != tt.want {
				t.Errorf("retryDelay(%d, %v) = %v, want %v", tt.attempts, tt.asked, got, tt.want)
			}
		})
	}
}
