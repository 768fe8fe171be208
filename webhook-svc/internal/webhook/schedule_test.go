package webhook_test

import (
	"strings"
	"testing"
	"time"

	"github.com/paylane/paylane/webhook-svc/internal/webhook"
)

func TestNextDelay(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		attempts   int
		jitter     float64
		retryAfter time.Duration
		want       time.Duration
		ok         bool
	}{
		{"after the first", 1, 0.5, 0, 5 * time.Second, true},
		{"after the second", 2, 0.5, 0, 5 * time.Minute, true},
		{"after the third", 3, 0.5, 0, 30 * time.Minute, true},
		{"after the fourth", 4, 0.5, 0, 2 * time.Hour, true},
		{"after the fifth", 5, 0.5, 0, 5 * time.Hour, true},
		{"after the sixth", 6, 0.5, 0, 10 * time.Hour, true},
		{"after the seventh", 7, 0.5, 0, 10 * time.Hour, true},
		{"exhausted after eight", 8, 0.5, 0, 0, false},
		{"jitter low end", 3, 0, 0, 27 * time.Minute, true},
		{"jitter high end", 3, 1, 0, 33 * time.Minute, true},
		{"retry-after longer", 1, 0.5, 90 * time.Second, 90 * time.Second, true},
		{"retry-after shorter keeps the schedule", 2, 0.5, time.Second, 5 * time.Minute, true},
		{"retry-after capped at an hour", 1, 0.5, 3 * time.Hour, time.Hour, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := webhook.NextDelay(tt.attempts, tt.jitter, tt.retryAfter)
			if got != tt.want || ok != tt.ok {
				t.Errorf("NextDelay(%d, %v, %s) = %s, %v; want %s, %v", tt.attempts, tt.jitter, tt.retryAfter, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestNewSecret(t *testing.T) {
	t.Parallel()
	a, err := webhook.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := webhook.NewSecret()
	if a == b || !strings.HasPrefix(a, "whsec_") {
		t.Fatalf("secrets %q, %q: want distinct whsec_ values", a, b)
	}
	key, err := webhook.SecretKey(a)
	if err != nil || len(key) != 32 {
		t.Fatalf("SecretKey = %d bytes, %v; want 32", len(key), err)
	}
}
