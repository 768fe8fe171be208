package sandbox_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/transactions-svc/internal/rail"
	"github.com/paylane/paylane/transactions-svc/internal/sandbox"
)

// TestRailAdapter: the simulator behind the rail interface answers as the
// contract's sandbox rules say.
func TestRailAdapter(t *testing.T) {
	t.Parallel()
	var r rail.Adapter = sandbox.Rail{}
	ctx := context.Background()
	if r.Provider() != rail.Sandbox {
		t.Fatalf("provider %s", r.Provider())
	}
	charge := func(number string, retry bool) rail.Result {
		res, err := r.Charge(ctx, rail.Charge{ReceivableID: "R1", CardNumber: number, Retry: retry})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	verify := func(last4 string) rail.Result {
		res, err := r.Verify(ctx, rail.Verify{PayableID: "P1", Last4: last4})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	disburse := func(last4 string, attempt int) rail.Result {
		res, err := r.Disburse(ctx, rail.Disbursement{PayableID: "P1", Last4: last4, Attempt: attempt})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	tests := []struct {
		name string
		got  rail.Result
		want rail.Result
	}{
		{"card pays", charge("4242 4242 4242 4242", false), rail.Result{Outcome: rail.Approved, Brand: "visa", Last4: "4242"}},
		{"card declined", charge(sandbox.CardDeclined, false), rail.Result{Outcome: rail.Declined, Reason: sandbox.ReasonDeclined, Brand: "visa", Last4: "0002"}},
		{"processor error", charge(sandbox.CardProcessorError, false), rail.Result{Outcome: rail.Error, Reason: sandbox.ReasonProcessorError, Brand: "visa", Last4: "0119"}},
		{"retry pays", charge("", true), rail.Result{Outcome: rail.Approved}},
		{"identity passes", verify("6789"), rail.Result{Outcome: rail.Approved}},
		{"identity fails on 0000", verify("0000"), rail.Result{Outcome: rail.Declined, Reason: sandbox.ReasonIdentityFailed}},
		{"disbursed", disburse("6789", 1), rail.Result{Outcome: rail.Approved}},
		{"1111 fails once", disburse("1111", 1), rail.Result{Outcome: rail.Error, Reason: sandbox.ReasonDisbursementErr}},
		{"1111 then succeeds", disburse("1111", 2), rail.Result{Outcome: rail.Approved}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}
