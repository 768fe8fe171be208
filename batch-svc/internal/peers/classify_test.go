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
	}{
		{"transport error", errors.New("connection refused"), false},
		{"timeout", context.DeadlineExceeded, false},
		{"open breaker", fmt.Errorf("%w: open", contacts.ErrUnavailable), false},
		{"contacts 503", &contacts.Error{Status: 503}, false},
		{"contacts 409 (raced write)", &contacts.Error{Status: 409}, false},
		{"contacts 429", &contacts.Error{Status: 429}, false},
		{"contacts 422 envelope", &contacts.Error{Status: 422, Code: "validation_failed"}, true},
		{"transactions 403", fmt.Errorf("bulk create: %w", &transactions.Error{Status: 403}), true},
		{"transactions 500", &transactions.Error{Status: 500}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := errors.Is(classify(tt.err), batch.ErrRejected); got != tt.permanent {
				t.Errorf("classify(%v) permanent = %v, want %v", tt.err, got, tt.permanent)
			}
		})
	}
}
