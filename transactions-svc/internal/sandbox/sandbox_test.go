package sandbox_test

import (
	"testing"
	"time"

	"github.com/paylane/paylane/transactions-svc/internal/sandbox"
)

func TestCharge(t *testing.T) {
	t.Parallel()
	tests := []struct {
		card  string
		retry bool
		want  sandbox.Outcome
	}{
		{sandbox.CardPays, false, sandbox.Approved},
		{"4242 4242 4242 4242", false, sandbox.Approved},
		{sandbox.CardDeclined, false, sandbox.Declined},
		{sandbox.CardProcessorError, false, sandbox.Error},
		{sandbox.CardProcessorError, true, sandbox.Approved},
	}
	for _, tt := range tests {
		if got, _ := sandbox.Charge(tt.card, tt.retry); got != tt.want {
			t.Errorf("Charge(%s, retry %v) = %s, want %s", tt.card, tt.retry, got, tt.want)
		}
	}
}

func TestPayoutRules(t *testing.T) {
	t.Parallel()
	if ok, _ := sandbox.IdentityCheck("0000"); ok {
		t.Error("0000 passed the identity check")
	}
	if ok, _ := sandbox.IdentityCheck("6789"); !ok {
		t.Error("6789 failed the identity check")
	}
	if o, _ := sandbox.Disburse("1111", 1); o != sandbox.Error {
		t.Errorf("first disbursement to 1111 = %s, want error", o)
	}
	if o, _ := sandbox.Disburse("1111", 2); o != sandbox.Approved {
		t.Errorf("retry to 1111 = %s, want approved", o)
	}
}

func TestValidators(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ok   bool
		fn   func(string) bool
		in   string
	}{
		{"aba valid", true, sandbox.ABA, "021000021"},
		{"aba valid 2", true, sandbox.ABA, "011000015"},
		{"aba checksum", false, sandbox.ABA, "021000022"},
		{"aba length", false, sandbox.ABA, "02100002"},
		{"account ok", true, sandbox.ValidAccountNumber, "000123456789"},
		{"account short", false, sandbox.ValidAccountNumber, "123"},
		{"account long", false, sandbox.ValidAccountNumber, "123456789012345678"},
		{"card luhn", true, sandbox.ValidCardNumber, "4000056655665556"},
		{"card bad luhn", false, sandbox.ValidCardNumber, "4000056655665557"},
	}
	for _, tt := range tests {
		if got := tt.fn(tt.in); got != tt.ok {
			t.Errorf("%s: %s = %v, want %v", tt.name, tt.in, got, tt.ok)
		}
	}
}

func TestLast4AndBrand(t *testing.T) {
	t.Parallel()
	if got := sandbox.Last4("4242-4242-4242-4242"); got != "4242" {
		t.Errorf("Last4 = %s", got)
	}
	if got := sandbox.Brand("5555555555554444"); got != "mastercard" {
		t.Errorf("Brand = %s", got)
	}
}

func TestCardFormCheck(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	ok := sandbox.CardForm{Number: "4242 4242 4242 4242", ExpMonth: "12", ExpYear: "27", CVC: "123", Name: "Ada"}
	if p := ok.Check(now); len(p) != 0 {
		t.Fatalf("valid card refused: %v", p)
	}
	bad := sandbox.CardForm{Number: "4242424242424241", ExpMonth: "10", ExpYear: "2026", CVC: "12a", Name: ""}
	p := bad.Check(now)
	for _, f := range []string{"card_number", "exp_year", "cvc", "cardholder_name"} {
		if p[f] == "" {
			t.Errorf("no problem with %s: %v", f, p)
		}
	}
}

func TestDestinationFormCheck(t *testing.T) {
	t.Parallel()
	p, last4 := sandbox.DestinationForm{Type: "bank_account", HolderName: "Ada", RoutingNumber: "021000021", AccountNumber: "000123456789"}.Check()
	if len(p) != 0 || last4 != "6789" {
		t.Fatalf("bank account: %v %q", p, last4)
	}
	p, _ = sandbox.DestinationForm{Type: "debit_card", HolderName: "Ada", CardNumber: "4000056655665557"}.Check()
	if p["card_number"] == "" {
		t.Fatalf("bad Luhn accepted: %v", p)
	}
	p, _ = sandbox.DestinationForm{Type: "cheque"}.Check()
	if p["destination_type"] == "" || p["account_holder_name"] == "" {
		t.Fatalf("unknown type: %v", p)
	}
}
