// Package wire renders batch-svc's resources as the API (and the summary
// event) shows them.
package wire

import (
	"strings"

	"github.com/paylane/paylane/batch-svc/internal/batch"
	"github.com/paylane/paylane/libs/apitime"
)

// Header is a batch header (spec section 2).
type Header struct {
	ID             string        `json:"id"`
	Type           batch.Type    `json:"type"`
	Status         batch.Status  `json:"status"`
	TotalItems     int           `json:"total_items"`
	ProcessedItems int           `json:"processed_items"`
	SucceededItems int           `json:"succeeded_items"`
	FailedItems    int           `json:"failed_items"`
	Options        batch.Options `json:"options"`
	FailureReason  *string       `json:"failure_reason"`
	StartedAt      *string       `json:"started_at"`
	CompletedAt    *string       `json:"completed_at"`
	CreatedAt      string        `json:"created_at"`
	UpdatedAt      string        `json:"updated_at"`
	Links          Links         `json:"links"`
}

// Links are a batch's URLs.
type Links struct {
	Self   string `json:"self"`
	Errors string `json:"errors"`
}

// NewHeader renders h; base is the public base URL the links start with
// (for example https://api.paylane.example), empty for relative links.
func NewHeader(h batch.Header, base string) Header {
	self := strings.TrimRight(base, "/") + "/api/v1/batches/" + h.ID
	return Header{
		ID: h.ID, Type: h.Type, Status: h.Status, TotalItems: h.TotalItems, ProcessedItems: h.ProcessedItems,
		SucceededItems: h.SucceededItems, FailedItems: h.FailedItems, Options: h.Options,
		FailureReason: h.FailureReason, StartedAt: apitime.FormatPtr(h.StartedAt), CompletedAt: apitime.FormatPtr(h.CompletedAt),
		CreatedAt: apitime.Format(h.CreatedAt), UpdatedAt: apitime.Format(h.UpdatedAt),
		Links: Links{Self: self, Errors: self + "/errors"},
	}
}

// RowError is a batch row error (spec section 2).
type RowError struct {
	RowIndex   int    `json:"row_index"`
	ExternalID string `json:"external_id"`
	Field      string `json:"field"`
	Message    string `json:"message"`
}

// NewRowErrors renders row errors.
func NewRowErrors(errs []batch.RowError) []RowError {
	out := make([]RowError, len(errs))
	for i, e := range errs {
		out[i] = RowError{RowIndex: e.RowIndex, ExternalID: e.ExternalID, Field: e.Field, Message: e.Message}
	}
	return out
}
