package pages_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/paylane/paylane/transactions-svc/internal/railmetrics"
)

func bank(account string) url.Values {
	return url.Values{"destination_type": {"bank_account"}, "account_holder_name": {"Ada Lovelace"},
		"routing_number": {"021000021"}, "account_number": {account}}
}

func debit(number string) url.Values {
	return url.Values{"destination_type": {"debit_card"}, "account_holder_name": {"Ada Lovelace"}, "card_number": {number}}
}

func TestPayoutPage(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tests := []struct {
		name   string
		form   url.Values
		status string
		page   string
	}{
		{"bank account", bank("000123456789"), "disbursed", "Payout sent"},
		{"debit card", debit(debitCard("4321")), "disbursed", "Payout sent"},
		{"identity check fails", debit(debitCard("0000")), "destination_selected", "Verification needed"},
		{"bank identity check fails", bank("12340000"), "destination_selected", "Verification needed"},
		{"disbursement fails once", bank("55551111"), "failed", "Payout delayed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			it := f.create(t, "payables")
			link := f.link(t, it)
			tt.form.Set("_csrf", f.open(t, link))
			expectPage(t, f.post(t, link, tt.form), http.StatusOK, tt.page)
			if got := f.show(t, "payables", it.ID); got.Status != tt.status {
				t.Fatalf("status %s, want %s", got.Status, tt.status)
			}
			expectPage(t, f.get(t, link), http.StatusOK, tt.page)
			if tt.status != "failed" {
				return
			}
			r := f.env.Do(t, http.MethodPost, "/api/v1/payables/"+it.ID+"/retry-disbursement", f.token, "")
			var o struct{ Data item }
			r.JSON(t, &o)
			if o.Data.Status != "disbursed" {
				t.Fatalf("retry: %s", r.Body)
			}
			expectPage(t, f.get(t, link), http.StatusOK, "Payout sent")
		})
	}
	families, err := f.env.Metrics.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		operation, outcome string
		want               float64
	}{
		{railmetrics.IdentityCheck, railmetrics.Succeeded, 3},
		{railmetrics.IdentityCheck, railmetrics.Declined, 2},
		{railmetrics.Disbursement, railmetrics.Succeeded, 3},
		{railmetrics.Disbursement, railmetrics.Error, 1},
	} {
		if got := railCount(families, "sandbox", c.operation, c.outcome); got != c.want {
			t.Errorf("rail_operations_total{operation=%s,outcome=%s} = %v, want %v", c.operation, c.outcome, got, c.want)
		}
	}
}

func TestPayoutFormChecksTheDestination(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	it := f.create(t, "payables")
	link := f.link(t, it)
	token := f.open(t, link)
	tests := []struct {
		name  string
		form  url.Values
		error string
	}{
		{"routing checksum", url.Values{"destination_type": {"bank_account"}, "account_holder_name": {"A"}, "routing_number": {"021000022"}, "account_number": {"123456"}}, "Enter a valid 9-digit routing number."},
		{"account length", bank("123"), "Enter an account number of 4 to 17 digits."},
		{"card luhn", debit("4000056655665557"), "Enter a valid debit card number."},
		{"no type", url.Values{"account_holder_name": {"A"}}, "Choose a bank account or a debit card."},
		{"no name", url.Values{"destination_type": {"debit_card"}, "card_number": {debitCard("4321")}}, "Enter the account holder&#39;s name."},
	}
	for _, tt := range tests {
		tt.form.Set("_csrf", token)
		expectPage(t, f.post(t, link, tt.form), http.StatusUnprocessableEntity, tt.error)
	}
	if got := f.show(t, "payables", it.ID); got.Status != "pending" {
		t.Fatalf("refused forms moved it to %s", got.Status)
	}
}
