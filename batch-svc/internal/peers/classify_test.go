package peers

import (
	"context"
	"errors"
	"fmt"
	"testing"

	contacts "github.com/paylane/paylane/contacts-svc/client"
	transactions "github.com/paylane/paylane/transactions-svc/client"

	"github.com/paylane/paylane/batch-svc/internal/batch"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		err       error
		permanent bool
		tooLarge  bool
	}{
		{"transport error", errors.New("connection refused"), false, false},
		{"timeout", context.DeadlineExceeded, false, false},
		{"open breaker", fmt.Errorf("%w: open", contacts.ErrUnavailable), false, false},
		{"contacts 503", &contacts.Error{Status: 503}, false, false},
		{"contacts 409 (raced write)", &contacts.Error{Status: 409}, false, false},
		{"contacts 429", &contacts.Error{Status: 429}, false, false},
		{"contacts 422 envelope", &contacts.Error{Status: 422, Code: "validation_failed"}, true, false},
		{"transactions 403", fmt.Errorf("bulk create: %w", &transactions.Error{Status: 403}), true, false},
		{"transactions 500", &transactions.Error{Status: 500}, false, false},
		{"contacts 413", fmt.Errorf("bulk upsert: %w", &contacts.Error{Status: 413}), true, true},
		{"transactions 413", &transactions.Error{Status: 413}, true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := errors.Is(classify(tt.err), batch.ErrRejected); got != tt.permanent {
				t.Errorf("classify(%v) permanent = %v, want %v", tt.err, got, tt.permanent)
			}
			if got := errors.Is(classify(tt.err), batch.ErrTooLarge); got != tt.tooLarge {
				t.Errorf("classify(%v) too large = %v, want %v", tt.err, got, tt.tooLarge)
			}
		})
	}
}
