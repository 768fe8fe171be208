package striperail

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/stripe/stripe-go/v82/webhook"

	"github.com/paylane/paylane/transactions-svc/internal/rail"
)

// ErrSignature reports a webhook whose Stripe-Signature does not verify
// with any of the rail's secrets (or is too old).
var ErrSignature = errors.New("striperail: invalid webhook signature")

// object is what Paylane reads of an event's data.object, across API
// versions.
type object struct {
	ID                string            `json:"id"`
	Metadata          map[string]string `json:"metadata"`
	ClientReferenceID string            `json:"client_reference_id"`
	PaymentStatus     string            `json:"payment_status"`
	PaymentIntent     json.RawMessage   `json:"payment_intent"`
	LastPaymentError  *struct {
		Code        string `json:"code"`
		DeclineCode string `json:"decline_code"`
	} `json:"last_payment_error"`
	PayoutsEnabled bool `json:"payouts_enabled"`
	Capabilities   struct {
		Transfers string `json:"transfers"`
	} `json:"capabilities"`
}

// ParseEvent verifies a webhook's Stripe-Signature header with each of
// secrets (Stripe's scheme: HMAC-SHA256 of "timestamp.payload", five
// minutes of tolerance) and reads what the event means for Paylane. The
// event's API version may differ from stripe-go's: only stable fields are
// read.
func ParseEvent(payload []byte, header string, secrets ...string) (rail.Event, error) {
	var (
		ev  rail.Event
		err = ErrSignature
	)
	for _, secret := range secrets {
		if secret == "" {
			continue
		}
		e, verr := webhook.ConstructEventWithOptions(payload, header, secret,
			webhook.ConstructEventOptions{IgnoreAPIVersionMismatch: true})
		if verr != nil {
			continue
		}
		ev, err = rail.Event{ID: e.ID, Type: string(e.Type), Kind: rail.Ignored}, nil
		if e.Data == nil {
			return ev, nil
		}
		var o object
		if err := json.Unmarshal(e.Data.Raw, &o); err != nil {
			return rail.Event{}, fmt.Errorf("striperail: reading event %s: %w", e.ID, err)
		}
		read(&ev, o)
		break
	}
	return ev, err
}

// read fills ev's meaning from the event type and object.
func read(ev *rail.Event, o object) {
	receivable := o.Metadata[MetaReceivable]
	if receivable == "" {
		receivable = o.ClientReferenceID
	}
	switch ev.Type {
	case "checkout.session.completed", "checkout.session.async_payment_succeeded":
		// A completed session with a delayed payment method is not paid yet:
		// async_payment_succeeded or _failed follows.
		if o.PaymentStatus == "paid" || o.PaymentStatus == "no_payment_required" {
			ev.Kind, ev.ReceivableID, ev.Reference = rail.Paid, receivable, idOf(o.PaymentIntent, o.ID)
		}
	case "checkout.session.async_payment_failed":
		ev.Kind, ev.ReceivableID, ev.Reference, ev.Reason = rail.PaymentFailed, receivable, idOf(o.PaymentIntent, o.ID), "async_payment_failed"
	case "payment_intent.payment_failed":
		ev.Kind, ev.ReceivableID, ev.Reference, ev.Reason = rail.PaymentFailed, o.Metadata[MetaReceivable], o.ID, "payment_failed"
		if e := o.LastPaymentError; e != nil && e.DeclineCode != "" {
			ev.Reason = e.DeclineCode
		} else if e != nil && e.Code != "" {
			ev.Reason = e.Code
		}
	case "account.updated":
		if Ready(o.PayoutsEnabled, o.Capabilities.Transfers) {
			ev.Kind, ev.Account = rail.AccountReady, o.ID
		}
	case "transfer.created":
		ev.Kind, ev.PayableID, ev.Reference = rail.Transferred, o.Metadata[MetaPayable], o.ID
	}
	if ev.Kind == rail.PaymentFailed && ev.ReceivableID == "" {
		ev.Kind = rail.Ignored // a payment Paylane did not start
	}
}

// idOf reads an expandable field: an id, or an object with an id; fallback
// when it is neither.
func idOf(raw json.RawMessage, fallback string) string {
	var id string
	if json.Unmarshal(raw, &id) == nil && id != "" {
		return id
	}
	var o struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(raw, &o) == nil && o.ID != "" {
		return o.ID
	}
	return fallback
}
