package optin_test

import (
	"testing"
	"time"

	"github.com/paylane/paylane/optin-svc/internal/optin"
)

func TestMessageMoves(t *testing.T) {
	t.Parallel()
	statuses := []string{optin.MessageQueued, optin.MessageSent, optin.MessageDelivered, optin.MessageFailed, optin.MessageSuppressed}
	allowed := map[[2]string]bool{
		{optin.MessageQueued, optin.MessageSent}:       true,
		{optin.MessageQueued, optin.MessageDelivered}:  true,
		{optin.MessageQueued, optin.MessageFailed}:     true,
		{optin.MessageQueued, optin.MessageSuppressed}: true,
		{optin.MessageSent, optin.MessageDelivered}:    true,
		{optin.MessageSent, optin.MessageFailed}:       true,
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, from := range statuses {
		for _, to := range statuses {
			t.Run(from+"->"+to, func(t *testing.T) {
				t.Parallel()
				m := optin.Message{Status: from}
				moved := m.Move(to, at)
				if moved != allowed[[2]string{from, to}] {
					t.Fatalf("Move(%s -> %s) = %v", from, to, moved)
				}
				if !moved {
					if m.Status != from {
						t.Errorf("a refused move changed the status to %s", m.Status)
					}
					return
				}
				if to == optin.MessageDelivered && (m.DeliveredAt == nil || m.SentAt == nil) {
					t.Errorf("delivered without timestamps: %+v", m)
				}
				if to == optin.MessageFailed && m.FailedAt == nil {
					t.Errorf("failed without failed_at: %+v", m)
				}
			})
		}
	}
}
