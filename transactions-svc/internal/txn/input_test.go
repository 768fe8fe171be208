package txn_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/transactions-svc/internal/fielddef"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
	"github.com/paylane/paylane/transactions-svc/internal/verr"
)

func ptr[T any](v T) *T { return &v }

var now = time.Date(2026, 11, 22, 1, 21, 17, 0, time.UTC)

func rules() txn.Rules {
	return txn.Rules{Now: now, DefaultCurrency: "EUR", Definitions: fielddef.NewSet([]fielddef.Definition{
		{Key: "tier", Type: fielddef.Enum, Options: []string{"gold", "silver"}},
	})}
}

func valid() txn.Input {
	return txn.Input{ContactID: ptr("01JD3X0Q4Z8W2E5R7T9Y1V3K5M"), Amount: json.RawMessage(`1250`)}
}

func TestValidateCreateRefusesBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		edit  func(*txn.Input)
		field string
	}{
		{"amount zero", func(in *txn.Input) { in.Amount = json.RawMessage(`0`) }, "amount"},
		{"amount negative", func(in *txn.Input) { in.Amount = json.RawMessage(`-5`) }, "amount"},
		{"amount fractional", func(in *txn.Input) { in.Amount = json.RawMessage(`10.5`) }, "amount"},
		{"amount above cap", func(in *txn.Input) { in.Amount = json.RawMessage(`100000000`) }, "amount"},
		{"amount huge", func(in *txn.Input) { in.Amount = json.RawMessage(`1e30`) }, "amount"},
		{"amount string", func(in *txn.Input) { in.Amount = json.RawMessage(`"100"`) }, "amount"},
		{"amount missing", func(in *txn.Input) { in.Amount = nil }, "amount"},
		{"currency unknown", func(in *txn.Input) { in.Currency = ptr("ABC") }, "currency"},
		{"send_at past", func(in *txn.Input) { in.SendAt = ptr("2026-11-22T01:00:00Z") }, "send_at"},
		{"send_at now", func(in *txn.Input) { in.SendAt = ptr("2026-11-22T01:21:17Z") }, "send_at"},
		{"send_at garbage", func(in *txn.Input) { in.SendAt = ptr("tomorrow") }, "send_at"},
		{"ttl zero", func(in *txn.Input) { in.LinkTTLHours = ptr(int64(0)) }, "link_ttl_hours"},
		{"ttl above", func(in *txn.Input) { in.LinkTTLHours = ptr(int64(721)) }, "link_ttl_hours"},
		{"no contact", func(in *txn.Input) { in.ContactID = nil }, "contact_id"},
		{"both contacts", func(in *txn.Input) { in.ContactObject = true; in.ContactExternalID = ptr("x") }, "contact_id"},
		{"contact without external id", func(in *txn.Input) { in.ContactID = nil; in.ContactObject = true }, "contact.external_id"},
		{"description long", func(in *txn.Input) { in.Description = ptr(string(make([]byte, 501))) }, "description"},
		{"due date", func(in *txn.Input) { in.DueDate = ptr("22/11/2026") }, "due_date"},
		{"custom undefined", func(in *txn.Input) { in.CustomFields = map[string]json.RawMessage{"x": json.RawMessage(`1`)} }, "custom_fields.x"},
		{"custom enum", func(in *txn.Input) { in.CustomFields = map[string]json.RawMessage{"tier": json.RawMessage(`"bronze"`)} }, "custom_fields.tier"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := valid()
			tt.edit(&in)
			_, err := txn.ValidateCreate(in, rules())
			var ve *verr.Error
			if !errors.As(err, &ve) || len(ve.Fields[tt.field]) == 0 {
				t.Fatalf("ValidateCreate = %v, want a problem with %s", err, tt.field)
			}
		})
	}
}

func TestValidateCreateDefaults(t *testing.T) {
	t.Parallel()
	in := valid()
	in.SendAt = ptr("2026-11-23T00:00:00+01:00")
	in.Currency = ptr("gbp")
	f, err := txn.ValidateCreate(in, rules())
	if err != nil {
		t.Fatal(err)
	}
	want := txn.Fields{Amount: 1250, Currency: "GBP", LinkTTLHours: 72, SendAt: ptr(time.Date(2026, 11, 22, 23, 0, 0, 0, time.UTC)),
		CustomFields: map[string]json.RawMessage{}}
	if diff := cmp.Diff(want, f); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
	f, err = txn.ValidateCreate(valid(), rules())
	if err != nil || f.Currency != "EUR" {
		t.Errorf("default currency = %q, %v; want the tenant's EUR", f.Currency, err)
	}
}

func TestValidateReplaceSendAtFollowsState(t *testing.T) {
	t.Parallel()
	sent := now.Add(-time.Hour)
	tests := []struct {
		name   string
		status txn.State
		sendAt *string
		prev   *time.Time
		ok     bool
	}{
		{"scheduled needs send_at", txn.Scheduled, nil, ptr(now.Add(time.Hour)), false},
		{"scheduled moves", txn.Scheduled, ptr("2026-12-01T00:00:00Z"), ptr(now.Add(time.Hour)), true},
		{"draft clears", txn.Draft, nil, ptr(now.Add(time.Hour)), true},
		{"pending keeps", txn.Pending, ptr(sent.Format(time.RFC3339)), &sent, true},
		{"pending cannot change", txn.Pending, ptr("2026-12-01T00:00:00Z"), nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			it := txn.Item{Direction: txn.Receivable, Status: tt.status, SendAt: tt.prev, ContactID: "01JD3X0Q4Z8W2E5R7T9Y1V3K5M"}
			in := valid()
			in.SendAt = tt.sendAt
			_, err := txn.ValidateReplace(it, in, rules())
			if (err == nil) != tt.ok {
				t.Fatalf("ValidateReplace = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func TestFormatAmount(t *testing.T) {
	t.Parallel()
	for in, want := range map[[2]string]string{
		{"1250", "USD"}: "$12.50", {"5", "EUR"}: "€0.05", {"1500", "JPY"}: "1500 JPY", {"12500", "KWD"}: "12.500 KWD",
	} {
		var n int64
		_ = json.Unmarshal([]byte(in[0]), &n)
		if got := txn.FormatAmount(n, in[1]); got != want {
			t.Errorf("FormatAmount(%s %s) = %q, want %q", in[0], in[1], got, want)
		}
	}
}
