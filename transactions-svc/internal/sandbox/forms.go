package sandbox

import (
	"strconv"
	"strings"
	"time"
)

// CardForm is the pay page's card form as posted.
type CardForm struct {
	Number, ExpMonth, ExpYear, CVC, Name string
}

// Check returns a message per field of the pay page that is wrong (empty
// when the card can be charged). The expiry month must not be in the past
// at now.
func (f CardForm) Check(now time.Time) map[string]string {
	p := map[string]string{}
	if !ValidCardNumber(Digits(f.Number)) || strings.ContainsAny(f.Number, "abcdefghijklmnopqrstuvwxyz") {
		p["card_number"] = "Enter a valid card number."
	}
	month, err := strconv.Atoi(strings.TrimSpace(f.ExpMonth))
	if err != nil || month < 1 || month > 12 {
		p["exp_month"] = "Enter the expiry month (1 to 12)."
	}
	year, err := strconv.Atoi(strings.TrimSpace(f.ExpYear))
	if err == nil && year < 100 {
		year += 2000
	}
	switch {
	case err != nil || year < 2000 || year > 2100:
		p["exp_year"] = "Enter the expiry year."
	case p["exp_month"] == "" && (year < now.Year() || (year == now.Year() && month < int(now.Month()))):
		p["exp_year"] = "This card has expired."
	}
	if c := strings.TrimSpace(f.CVC); len(c) < 3 || len(c) > 4 || Digits(c) != c {
		p["cvc"] = "Enter the 3 or 4 digit security code."
	}
	if n := strings.TrimSpace(f.Name); n == "" || len(n) > 100 {
		p["cardholder_name"] = "Enter the name on the card."
	}
	return p
}

// DestinationForm is the payout page's form as posted.
type DestinationForm struct {
	Type, HolderName, RoutingNumber, AccountNumber, CardNumber string
}

// Destination types of the payout page.
const (
	BankAccount = "bank_account"
	DebitCard   = "debit_card"
)

// Check returns a message per field of the payout page that is wrong, and
// the last four digits of the chosen number when all is well.
func (f DestinationForm) Check() (map[string]string, string) {
	p := map[string]string{}
	if n := strings.TrimSpace(f.HolderName); n == "" || len(n) > 100 {
		p["account_holder_name"] = "Enter the account holder's name."
	}
	var number string
	switch f.Type {
	case BankAccount:
		if r := strings.TrimSpace(f.RoutingNumber); !ABA(r) {
			p["routing_number"] = "Enter a valid 9-digit routing number."
		}
		number = strings.TrimSpace(f.AccountNumber)
		if !ValidAccountNumber(number) {
			p["account_number"] = "Enter an account number of 4 to 17 digits."
		}
	case DebitCard:
		number = Digits(f.CardNumber)
		if !ValidCardNumber(number) || strings.ContainsAny(f.CardNumber, "abcdefghijklmnopqrstuvwxyz") {
			p["card_number"] = "Enter a valid debit card number."
		}
	default:
		p["destination_type"] = "Choose a bank account or a debit card."
	}
	if len(p) > 0 {
		return p, ""
	}
	return p, Last4(number)
}
