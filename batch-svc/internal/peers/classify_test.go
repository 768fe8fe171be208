package peers

import (
	"context"
	"errors"
	"fmt"
	"testing"

	contacts "github.com/paylane/paylane/contacts-svc/client"
	identity "github.com/paylane/paylane/identity-svc/client"
	transactions "github.com/paylane/paylane/transactions-svc/client"

	"github.com/paylane/paylane/batch-svc/internal/batch"
)

// kind is what a worker does with a writer's failure.
type kind int

const (
	transient    kind = iota // retried with backoff
	batchLevel               // the batch fails
	tooLarge                 // split; a single item is a row error
	refused                  // split; a single item is a row error with the fields
	serverFailed             // split; a single item is a row error when others pass
)

func kindOf(err error) kind {
	switch {
	case errors.Is(err, batch.ErrTooLarge):
		return tooLarge
	case errors.Is(err, batch.ErrRejected):
		return batchLevel
	case errors.Is(err, batch.ErrRefused):
		return refused
	case errors.Is(err, batch.ErrServerFailed):
		return serverFailed
	}
	return transient
}

func TestClassify(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		err  error
		want kind
	}{
		{"transport error", errors.New("connection refused"), transient},
		{"timeout", context.DeadlineExceeded, transient},
		{"open breaker", fmt.Errorf("%w: open", contacts.ErrUnavailable), transient},
		{"contacts 503", &contacts.Error{Status: 503}, transient},
		{"contacts 502", &contacts.Error{Status: 502}, transient},
		{"transactions 504", &transactions.Error{Status: 504}, transient},
		{"contacts 429", &contacts.Error{Status: 429}, transient},
		{"contacts 408", &contacts.Error{Status: 408}, transient},
		{"contacts 409", &contacts.Error{Status: 409}, refused},
		{"contacts 422 envelope", &contacts.Error{Status: 422, Code: "validation_failed"}, refused},
		{"transactions 400", &transactions.Error{Status: 400}, refused},
		{"transactions 403", fmt.Errorf("bulk create: %w", &transactions.Error{Status: 403}), batchLevel},
		{"contacts 401", &contacts.Error{Status: 401}, batchLevel},
		{"contacts 404 (no such route)", &contacts.Error{Status: 404}, batchLevel},
		{"transactions 500", &transactions.Error{Status: 500}, serverFailed},
		{"contacts 500", fmt.Errorf("bulk upsert: %w", &contacts.Error{Status: 500}), serverFailed},
		{"contacts 501", &contacts.Error{Status: 501}, serverFailed},
		{"contacts 413", fmt.Errorf("bulk upsert: %w", &contacts.Error{Status: 413}), tooLarge},
		{"transactions 413", &transactions.Error{Status: 413}, tooLarge},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := kindOf(classify(tt.err)); got != tt.want {
				t.Errorf("classify(%v) = kind %d, want %d", tt.err, got, tt.want)
			}
		})
	}
}

func TestRefusalCarriesTheFields(t *testing.T) {
	t.Parallel()
	err := classify(fmt.Errorf("bulk upsert: %w", &contacts.Error{Status: 422, Code: "validation_failed",
		Details: []byte(`{"items.3.external_id":["The external id is invalid."]}`)}))
	var re *batch.RefusedError
	if !errors.As(err, &re) || len(re.Fields["items.3.external_id"]) != 1 {
		t.Fatalf("classify = %#v, want a RefusedError with the fields", err)
	}
}

func TestTokenRefusalsFailTheBatch(t *testing.T) {
	t.Parallel()
	for status, want := range map[int]kind{422: batchLevel, 403: batchLevel, 429: transient, 503: transient, 500: transient} {
		if got := kindOf(classifyToken(&identity.Error{Status: status})); got != want {
			t.Errorf("classifyToken(%d) = kind %d, want %d", status, got, want)
		}
	}
}
