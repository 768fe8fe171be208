package client

import "time"

// Batch types (what a batch ingests).
const (
	TypeContacts    = "contacts"
	TypeReceivables = "receivables"
	TypePayables    = "payables"
)

// Batch states, in their life's order.
const (
	StatusQueued         = "queued"
	StatusProcessing     = "processing"
	StatusCompleted      = "completed"
	StatusPartialFailure = "partial_failure"
	StatusFailed         = "failed"
)

// Types returns every batch type.
func Types() []string { return []string{TypeContacts, TypeReceivables, TypePayables} }

// Statuses returns every batch state.
func Statuses() []string {
	return []string{StatusQueued, StatusProcessing, StatusCompleted, StatusPartialFailure, StatusFailed}
}

// Batch is a batch header as the API shows it (spec section 2).
type Batch struct {
	ID             string     `json:"id"`
	Type           string     `json:"type"`
	Status         string     `json:"status"`
	TotalItems     int        `json:"total_items"`
	ProcessedItems int        `json:"processed_items"`
	SucceededItems int        `json:"succeeded_items"`
	FailedItems    int        `json:"failed_items"`
	Options        Options    `json:"options"`
	FailureReason  *string    `json:"failure_reason"`
	StartedAt      *time.Time `json:"started_at"`
	CompletedAt    *time.Time `json:"completed_at"`
	CreatedAt      time.Time  `json:"created_at"`
	UpdatedAt      time.Time  `json:"updated_at"`
	Links          Links      `json:"links"`
}

// Final reports whether the batch has ended (completed, partial_failure or
// failed).
func (b Batch) Final() bool {
	return b.Status == StatusCompleted || b.Status == StatusPartialFailure || b.Status == StatusFailed
}

// Options are a batch's effective options. The campaign fields are set for
// receivables and payables batches only.
type Options struct {
	OnDuplicate                string  `json:"on_duplicate"`
	SuppressWebhooks           bool    `json:"suppress_webhooks"`
	SuppressActivityLog        bool    `json:"suppress_activity_log"`
	CampaignID                 *string `json:"campaign_id,omitempty"`
	AutoAssignCampaign         *bool   `json:"auto_assign_campaign,omitempty"`
	AcknowledgeMessagingVolume *bool   `json:"acknowledge_messaging_volume,omitempty"`
}

// Links are a batch's URLs on the API.
type Links struct {
	Self   string `json:"self"`
	Errors string `json:"errors"`
}

// RowError is a batch row error (spec section 2): row_index is 0-based.
type RowError struct {
	RowIndex   int    `json:"row_index"`
	ExternalID string `json:"external_id"`
	Field      string `json:"field"`
	Message    string `json:"message"`
}

// Meta describes where a page sits in its collection.
type Meta struct {
	CurrentPage int `json:"current_page"`
	PerPage     int `json:"per_page"`
	Total       int `json:"total"`
	LastPage    int `json:"last_page"`
	// TotalIsEstimate: more rows match than a list counts exactly and
	// Total is an estimate (libs/listtotal).
	TotalIsEstimate bool `json:"total_is_estimate,omitempty"`
}

// BatchPage is a page of batch headers, newest first.
type BatchPage struct {
	Data []Batch `json:"data"`
	Meta Meta    `json:"meta"`
}

// RowErrorPage is a page of a batch's row errors, in row order.
type RowErrorPage struct {
	Data []RowError `json:"data"`
	Meta Meta       `json:"meta"`
}

// Filters select a page of GET /api/v1/batches. Type and Status empty mean
// any (without Type, the types the token may read); Page and PerPage 0 use
// the service's defaults (page 1, 15 per page, at most 100).
type Filters struct {
	Type, Status  string
	Page, PerPage int
}

// Page selects a page of a batch's row errors: 0 uses the service's
// defaults (page 1, 25 per page, at most 100).
type Page struct {
	Page, PerPage int
}
