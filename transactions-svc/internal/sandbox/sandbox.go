// Package sandbox is the deterministic sandbox payment rail (contract
// section 6). It moves no money: it reads a card or account number only to
// pick its outcome, and what it returns keeps the last four digits and the
// brand, never the whole number.
package sandbox

import (
	"strings"
)

// Test cards of the pay page.
const (
	CardPays           = "4242424242424242"
	CardDeclined       = "4000000000000002"
	CardProcessorError = "4000000000000119"
)

// Outcome is the rail's answer to a charge or a disbursement.
type Outcome string

// Outcomes.
const (
	Approved Outcome = "approved" // paid, or disbursed
	Declined Outcome = "declined" // the card was declined: the receivable stays pending
	Error    Outcome = "error"    // a processor error: failed, a retry succeeds
)

// Failure reasons the rail reports.
const (
	ReasonDeclined        = "card_declined"
	ReasonProcessorError  = "processor_error"
	ReasonIdentityFailed  = "identity_check_failed"
	ReasonDisbursementErr = "disbursement_failed"
)

// Card is the summary of a card kept after a charge.
type Card struct {
	Brand string
	Last4 string
}

// Charge answers a card payment. retry is true for retry-payment, which
// always succeeds after a processor error.
func Charge(number string, retry bool) (Outcome, string) {
	if retry {
		return Approved, ""
	}
	switch Digits(number) {
	case CardDeclined:
		return Declined, ReasonDeclined
	case CardProcessorError:
		return Error, ReasonProcessorError
	}
	return Approved, ""
}

// IdentityCheck passes unless the destination's number ends in 0000.
func IdentityCheck(last4 string) (bool, string) {
	if last4 == "0000" {
		return false, ReasonIdentityFailed
	}
	return true, ""
}

// Disburse answers a payout: a number ending in 1111 fails the first
// attempt (attempt 1) and succeeds on retry.
func Disburse(last4 string, attempt int) (Outcome, string) {
	if last4 == "1111" && attempt <= 1 {
		return Error, ReasonDisbursementErr
	}
	return Approved, ""
}

// Digits keeps the digits of s (card numbers are often typed with spaces or
// dashes).
func Digits(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Last4 returns the last four digits of a number.
func Last4(number string) string {
	d := Digits(number)
	if len(d) <= 4 {
		return d
	}
	return d[len(d)-4:]
}

// Brand names a card's network from its leading digits.
func Brand(number string) string {
	d := Digits(number)
	switch {
	case strings.HasPrefix(d, "4"):
		return "visa"
	case len(d) >= 2 && d[0] == '5' && d[1] >= '1' && d[1] <= '5', strings.HasPrefix(d, "2"):
		return "mastercard"
	case strings.HasPrefix(d, "34"), strings.HasPrefix(d, "37"):
		return "amex"
	case strings.HasPrefix(d, "6"):
		return "discover"
	}
	return "unknown"
}
