package txn_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/transactions-svc/internal/txn"
	"github.com/paylane/paylane/transactions-svc/internal/verr"
)

func TestValidateBatchCreateContact(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   txn.Input
		want map[string][]string
	}{
		{"contact object without external id", txn.Input{ContactObject: true}, nil},
		{"contact object with external id", txn.Input{ContactObject: true, ContactExternalID: ptr("crm-1")}, nil},
		{"contact_id", txn.Input{ContactID: ptr("01JD3X0Q4Z8W2E5R7T9Y1V3K5M")}, nil},
		{"no contact", txn.Input{}, map[string][]string{"contact": {txn.MsgContactRequired}}},
		{"empty contact_id", txn.Input{ContactID: ptr("")}, map[string][]string{"contact_id": {"The contact_id field is required."}}},
		{"both", txn.Input{ContactID: ptr("x"), ContactObject: true},
			map[string][]string{"contact_id": {"The contact_id field is prohibited when contact is present."}}},
		{"the single create's rules for the rest", txn.Input{ContactObject: true, SendAt: ptr("2026-11-22T01:00:00Z")},
			map[string][]string{"send_at": {"The send_at field must be a date after now."}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.in.Amount = json.RawMessage(`1250`)
			_, err := txn.ValidateBatchCreate(tt.in, rules())
			var got map[string][]string
			var ve *verr.Error
			if errors.As(err, &ve) {
				got = ve.Fields
			} else if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOnDuplicateValid(t *testing.T) {
	t.Parallel()
	for p, want := range map[txn.OnDuplicate]bool{"update": true, "skip": true, "fail": true, "": false, "merge": false} {
		if p.Valid() != want {
			t.Errorf("OnDuplicate(%q).Valid() = %v", p, !want)
		}
	}
}
