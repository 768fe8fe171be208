package batch

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// OnDuplicate is what a row whose external id names an existing record (or
// an earlier row) does.
type OnDuplicate string

// The duplicate policies.
const (
	DuplicateUpdate OnDuplicate = "update"
	DuplicateSkip   OnDuplicate = "skip"
	DuplicateFail   OnDuplicate = "fail"
)

// Options are a batch's effective options (defaults applied). The
// campaign fields exist for receivables and payables only and are omitted
// from a contacts batch's header.
type Options struct {
	OnDuplicate                OnDuplicate `json:"on_duplicate"`
	SuppressWebhooks           bool        `json:"suppress_webhooks"`
	SuppressActivityLog        bool        `json:"suppress_activity_log"`
	CampaignID                 *string     `json:"campaign_id,omitempty"`
	AutoAssignCampaign         *bool       `json:"auto_assign_campaign,omitempty"`
	AcknowledgeMessagingVolume *bool       `json:"acknowledge_messaging_volume,omitempty"`
}

// OptionsInput is the options object as a client sends it: absent fields
// are nil.
type OptionsInput struct {
	OnDuplicate                *string `json:"on_duplicate"`
	SuppressWebhooks           *bool   `json:"suppress_webhooks"`
	SuppressActivityLog        *bool   `json:"suppress_activity_log"`
	CampaignID                 *string `json:"campaign_id"`
	AutoAssignCampaign         *bool   `json:"auto_assign_campaign"`
	AcknowledgeMessagingVolume *bool   `json:"acknowledge_messaging_volume"`
}

// Envelope is a submission's body: the raw items and the options.
type Envelope struct {
	Items   []json.RawMessage `json:"items"`
	Options *OptionsInput     `json:"options"`
}

// Submission is a validated envelope of a batch type.
type Submission struct {
	Type    Type
	Items   []json.RawMessage
	Options Options
}

// Validate checks the envelope of a batch of type t (spec section 4, Batch
// ingest): items present, within the type's bounds, each a JSON object;
// options known for the type. The items themselves are validated later, by
// the worker, row by row.
func Validate(t Type, env Envelope) (Submission, error) {
	problems := map[string][]string{}
	add := func(field, msg string) { problems[field] = append(problems[field], msg) }
	switch {
	case env.Items == nil:
		add("items", "The items field is required.")
	case len(env.Items) < 1 || len(env.Items) > t.MaxItems():
		add("items", fmt.Sprintf("The items field must have between 1 and %d items.", t.MaxItems()))
	default:
		for i, raw := range env.Items {
			if !isObject(raw) {
				add(fmt.Sprintf("items.%d", i), "The item must be a JSON object.")
				if len(problems) >= 10 { // enough to show what is wrong
					break
				}
			}
		}
	}
	opts := effective(t, env.Options, add)
	if len(problems) > 0 {
		return Submission{}, &ValidationError{Fields: problems}
	}
	return Submission{Type: t, Items: env.Items, Options: opts}, nil
}

// effective applies the defaults to in, reporting options the type does
// not take.
func effective(t Type, in *OptionsInput, add func(field, msg string)) Options {
	o := Options{OnDuplicate: DuplicateUpdate, SuppressWebhooks: true, SuppressActivityLog: true}
	if t != Contacts {
		f := false
		o.AutoAssignCampaign, o.AcknowledgeMessagingVolume = &f, &f
	}
	if in == nil {
		return o
	}
	if in.OnDuplicate != nil {
		switch d := OnDuplicate(*in.OnDuplicate); d {
		case DuplicateUpdate, DuplicateSkip, DuplicateFail:
			o.OnDuplicate = d
		default:
			add("options.on_duplicate", "The options.on_duplicate field must be one of update, skip, fail.")
		}
	}
	if in.SuppressWebhooks != nil {
		o.SuppressWebhooks = *in.SuppressWebhooks
	}
	if in.SuppressActivityLog != nil {
		o.SuppressActivityLog = *in.SuppressActivityLog
	}
	campaign := map[string]bool{
		"options.campaign_id": in.CampaignID != nil, "options.auto_assign_campaign": in.AutoAssignCampaign != nil,
		"options.acknowledge_messaging_volume": in.AcknowledgeMessagingVolume != nil,
	}
	if t == Contacts {
		for field, set := range campaign {
			if set {
				add(field, "The "+field+" field is not allowed for a contacts batch.")
			}
		}
		return o
	}
	if in.CampaignID != nil {
		if *in.CampaignID == "" {
			add("options.campaign_id", "The options.campaign_id field must not be empty.")
		}
		o.CampaignID = in.CampaignID
	}
	if in.AutoAssignCampaign != nil {
		o.AutoAssignCampaign = in.AutoAssignCampaign
	}
	if in.AcknowledgeMessagingVolume != nil {
		o.AcknowledgeMessagingVolume = in.AcknowledgeMessagingVolume
	}
	return o
}

func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

// MaxProjectedMessages is the most outbound messages a batch may project
// (items × campaign steps) without options.acknowledge_messaging_volume.
const MaxProjectedMessages = 10000

// CheckMessagingVolume refuses a submission whose projected messages
// (items × steps) exceed MaxProjectedMessages without acknowledgement.
func CheckMessagingVolume(s Submission, steps int) error {
	if len(s.Items)*steps <= MaxProjectedMessages {
		return nil
	}
	if s.Options.AcknowledgeMessagingVolume != nil && *s.Options.AcknowledgeMessagingVolume {
		return nil
	}
	return &ValidationError{Fields: map[string][]string{"options.acknowledge_messaging_volume": {fmt.Sprintf(
		"The batch projects %d outbound messages (above %d); set options.acknowledge_messaging_volume to true.",
		len(s.Items)*steps, MaxProjectedMessages)}}}
}

// Chunks splits items into chunks of at most ChunkSize, in row order.
func Chunks(items []json.RawMessage) []Chunk {
	var out []Chunk
	for first := 0; first < len(items); first += ChunkSize {
		end := min(first+ChunkSize, len(items))
		out = append(out, Chunk{Index: len(out), FirstRowIndex: first, Items: items[first:end]})
	}
	return out
}
