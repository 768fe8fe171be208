package striperail_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stripe/stripe-go/v82/webhook"

	"github.com/paylane/paylane/transactions-svc/internal/rail"
	"github.com/paylane/paylane/transactions-svc/internal/rail/striperail"
)

const secret = "whsec_test_secret"

// event is a Stripe event of type typ about object, as Stripe sends it.
func event(t *testing.T, id, typ string, object map[string]any) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"id": id, "object": "event", "type": typ, "api_version": "2024-06-20",
		"created": time.Now().Unix(), "livemode": false, "data": map[string]any{"object": object}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sign returns the Stripe-Signature header of payload, as Stripe signs it.
func sign(payload []byte, secret string, at time.Time) string {
	return webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: secret, Timestamp: at}).Header
}

func TestParseEventReadsWhatSettlesItems(t *testing.T) {
	t.Parallel()
	meta := func(k, v string) map[string]any { return map[string]any{k: v} }
	tests := []struct {
		name   string
		typ    string
		object map[string]any
		want   rail.Event
	}{
		{"checkout paid", "checkout.session.completed",
			map[string]any{"id": "cs_1", "payment_status": "paid", "payment_intent": "pi_1", "metadata": meta(striperail.MetaReceivable, "R1")},
			rail.Event{Kind: rail.Paid, ReceivableID: "R1", Reference: "pi_1"}},
		{"checkout completed, payment delayed", "checkout.session.completed",
			map[string]any{"id": "cs_1", "payment_status": "unpaid", "client_reference_id": "R1"},
			rail.Event{Kind: rail.Ignored}},
		{"delayed payment succeeded", "checkout.session.async_payment_succeeded",
			map[string]any{"id": "cs_1", "payment_status": "paid", "client_reference_id": "R1"},
			rail.Event{Kind: rail.Paid, ReceivableID: "R1", Reference: "cs_1"}},
		{"delayed payment failed", "checkout.session.async_payment_failed",
			map[string]any{"id": "cs_1", "client_reference_id": "R1", "payment_intent": map[string]any{"id": "pi_2"}},
			rail.Event{Kind: rail.PaymentFailed, ReceivableID: "R1", Reference: "pi_2", Reason: "async_payment_failed"}},
		{"card declined", "payment_intent.payment_failed",
			map[string]any{"id": "pi_3", "metadata": meta(striperail.MetaReceivable, "R1"),
				"last_payment_error": map[string]any{"code": "card_declined", "decline_code": "insufficient_funds"}},
			rail.Event{Kind: rail.PaymentFailed, ReceivableID: "R1", Reference: "pi_3", Reason: "insufficient_funds"}},
		{"a payment Paylane did not start", "payment_intent.payment_failed",
			map[string]any{"id": "pi_4"}, rail.Event{Kind: rail.Ignored, Reference: "pi_4", Reason: "payment_failed"}},
		{"account ready", "account.updated",
			map[string]any{"id": "acct_1", "payouts_enabled": true}, rail.Event{Kind: rail.AccountReady, Account: "acct_1"}},
		{"account not ready", "account.updated",
			map[string]any{"id": "acct_1", "capabilities": map[string]any{"transfers": "pending"}}, rail.Event{Kind: rail.Ignored}},
		{"transfer", "transfer.created",
			map[string]any{"id": "tr_1", "metadata": meta(striperail.MetaPayable, "P1")},
			rail.Event{Kind: rail.Transferred, PayableID: "P1", Reference: "tr_1"}},
		{"other", "customer.created", map[string]any{"id": "cus_1"}, rail.Event{Kind: rail.Ignored}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			payload := event(t, "evt_1", tt.typ, tt.object)
			got, err := striperail.ParseEvent(payload, sign(payload, secret, time.Now()), "whsec_other", secret)
			if err != nil {
				t.Fatal(err)
			}
			tt.want.ID, tt.want.Type = "evt_1", tt.typ
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("event (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseEventRefusesBadSignatures(t *testing.T) {
	t.Parallel()
	payload := event(t, "evt_1", "checkout.session.completed", map[string]any{"id": "cs_1", "payment_status": "paid"})
	tests := map[string]string{
		"other secret":  sign(payload, "whsec_forged", time.Now()),
		"too old":       sign(payload, secret, time.Now().Add(-time.Hour)),
		"no signature":  "",
		"garbage":       "t=1,v1=00",
		"other payload": sign(append([]byte(" "), payload...), secret, time.Now()),
	}
	for name, header := range tests {
		if _, err := striperail.ParseEvent(payload, header, secret); !errors.Is(err, striperail.ErrSignature) {
			t.Errorf("%s: %v, want ErrSignature", name, err)
		}
	}
}
