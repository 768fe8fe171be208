// Package campaign is the campaigns domain (contract section 7): named
// groups of transactions of one direction with follow-up SMS steps and
// assignment rules, published before they can be assigned.
package campaign

import (
	"encoding/json"
	"time"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// Status is a campaign's publication state.
type Status string

// Statuses.
const (
	Draft     Status = "draft"
	Published Status = "published"
	Archived  Status = "archived"
)

// Limits of campaigns.
const (
	MaxNameLength    = 191
	MaxSteps         = 10
	MaxRules         = 20
	MaxMessageLength = 320
	MaxDelayHours    = 720
	MinPriority      = -1000
	MaxPriority      = 1000
)

// Errors of campaigns.
var (
	ErrNotFound = apierr.NewSentinel("campaign: not found", apierr.NotFound())
	// ErrNotAssignable: inactive, unpublished or of the other direction.
	ErrNotAssignable = apierr.NewSentinel("campaign: not assignable", apierr.Field("campaign_id", MsgNotAssignable))
	// ErrAlreadyAssigned: the transaction has a campaign and reassign is not true.
	ErrAlreadyAssigned = apierr.NewSentinel("campaign: transaction already assigned",
		apierr.Conflict(apierr.CodeAlreadyAssigned, "The transaction is already assigned to a campaign; send reassign true to change it."))
)

// MsgNotAssignable is the client's message for ErrNotAssignable, on the
// field campaign_id: a 422 of an assignment, or a batch row's error.
const MsgNotAssignable = "The selected campaign_id is invalid: the campaign must be active, published and of the transaction's direction."

// Step is a follow-up SMS sent DelayHours after the previous SMS of the
// transaction, while it stays pending.
type Step struct {
	DelayHours int
	Message    string
}

// Rule is one condition on a new transaction: Field is amount, currency or
// custom_fields.<key>; Op is eq, gte, lte or in.
type Rule struct {
	Field string
	Op    string
	Value json.RawMessage
}

// Campaign is a tenant's campaign.
type Campaign struct {
	ID        string
	TenantID  string
	Name      string
	Direction txn.Direction
	Status    Status
	IsActive  bool
	Priority  int
	Steps     []Step
	Rules     []Rule
	CreatedAt time.Time
	UpdatedAt time.Time
	DeletedAt *time.Time
}

// Assignable reports why c cannot be assigned to a transaction of
// direction d, or nil.
func (c Campaign) Assignable(d txn.Direction) error {
	if c.DeletedAt != nil || !c.IsActive || c.Status != Published || c.Direction != d {
		return ErrNotAssignable
	}
	return nil
}

// Publish moves a draft campaign to published; anything else is a
// *txn.TransitionError naming the pair.
func (c Campaign) Publish() (Campaign, error) {
	if c.Status != Draft {
		return c, &txn.TransitionError{From: txn.State(c.Status), To: txn.State(Published)}
	}
	c.Status = Published
	return c, nil
}
