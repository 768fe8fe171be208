package txn_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// allowed spells out contract section 6 independently of the code's tables:
// "state: action=target ...". Every (state, action) pair not listed must be
// refused.
const receivableAllowed = `
draft: confirm=pending confirm_scheduled=scheduled cancel=cancelled draft_timeout=expired update=draft delete=draft
scheduled: send=pending cancel=cancelled expire=expired link_expired=expired update=scheduled
pending: submit_card=processing mark_paid=paid cancel=cancelled expire=expired link_expired=expired resend_notification=pending revoke_link=pending verify_payer=pending update=pending
processing: rail_paid=paid rail_declined=pending rail_error=failed
failed: retry_payment=processing mark_paid=paid cancel=cancelled
cancelled: delete=cancelled
expired: delete=expired
`

const payableAllowed = `
draft: confirm=pending confirm_scheduled=scheduled cancel=cancelled draft_timeout=expired update=draft delete=draft
scheduled: send=pending cancel=cancelled expire=expired link_expired=expired update=scheduled
pending: select_destination=destination_selected mark_disbursed=disbursed cancel=cancelled expire=expired link_expired=expired resend_notification=pending revoke_link=pending update=pending
destination_selected: verify_identity=verified identity_failed=destination_selected mark_disbursed=disbursed revoke_link=pending
verified: disburse=processing
processing: rail_disbursed=disbursed rail_failed=failed
failed: retry_disbursement=processing mark_disbursed=disbursed
cancelled: delete=cancelled
expired: delete=expired
`

// refusedTarget is the "to" a refused action names in its message; update
// names the state it found.
var refusedTarget = map[txn.Action]string{
	txn.Confirm: "pending", txn.ConfirmScheduled: "scheduled", txn.SendDue: "pending",
	txn.Cancel: "cancelled", txn.Expire: "expired", txn.LinkExpired: "expired", txn.DraftTimeout: "expired",
	txn.Resend: "pending", txn.RevokeLink: "pending", txn.Delete: "deleted",
	txn.SubmitCard: "processing", txn.RailPaid: "paid", txn.RailDeclined: "pending", txn.RailError: "failed",
	txn.RetryPayment: "processing", txn.MarkPaid: "paid", txn.VerifyPayer: "pending",
	txn.SelectDestination: "destination_selected", txn.VerifyIdentity: "verified",
	txn.IdentityFailed: "destination_selected", txn.Disburse: "processing", txn.RailDisbursed: "disbursed",
	txn.RailFailed: "failed", txn.RetryDisbursement: "processing", txn.MarkDisbursed: "disbursed",
}

func actions() []txn.Action {
	out := make([]txn.Action, 0, len(refusedTarget)+1)
	for a := range refusedTarget {
		out = append(out, a)
	}
	return append(out, txn.Update)
}

func parseAllowed(t *testing.T, spec string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(spec), "\n") {
		state, rest, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("bad line %q", line)
		}
		for _, pair := range strings.Fields(rest) {
			action, to, _ := strings.Cut(pair, "=")
			out[state+" "+action] = to
		}
	}
	return out
}

func TestMachinesCoverEveryPair(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		machine txn.Machine
		states  []txn.State
		allowed string
	}{
		{"receivable", txn.ReceivableMachine(), txn.ReceivableStates(), receivableAllowed},
		{"payable", txn.PayableMachine(), txn.PayableStates(), payableAllowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			allowed := parseAllowed(t, tt.allowed)
			for _, s := range tt.states {
				for _, a := range actions() {
					checkPair(t, tt.name, tt.machine, s, a, allowed)
				}
			}
		})
	}
}

func checkPair(t *testing.T, name string, m txn.Machine, s txn.State, a txn.Action, allowed map[string]string) {
	t.Helper()
	t.Run(fmt.Sprintf("%s/%s", s, a), func(t *testing.T) {
		got, err := m.Next(s, a)
		want, ok := allowed[string(s)+" "+string(a)]
		if a == txn.Delete && ok {
			want = "deleted" // the stored state is kept; Next names the move
		}
		switch {
		case ok:
			if err != nil || string(got) != want {
				t.Fatalf("Next(%s, %s) = %s, %v; want %s", s, a, got, err, want)
			}
		case name == "receivable" && s == txn.Paid && a == txn.Cancel:
			if !errors.Is(err, txn.ErrAlreadyPaid) {
				t.Fatalf("cancel in paid = %v, want ErrAlreadyPaid", err)
			}
		default:
			var te *txn.TransitionError
			if !errors.As(err, &te) {
				t.Fatalf("Next(%s, %s) = %s, %v; want a refusal", s, a, got, err)
			}
			wantTo := refusedTarget[a]
			if a == txn.Update {
				wantTo = string(s)
			}
			if msg := string(s) + " -> " + wantTo; te.Error() != msg || got != s {
				t.Fatalf("refusal %q (state %s), want %q and the state kept", te.Error(), got, msg)
			}
		}
	})
}
