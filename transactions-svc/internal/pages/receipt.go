package pages

import (
	"time"

	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// receipt is what a payer keeps of a settled payment or payout: a
// reference to quote to the sender, when it happened and the last four
// digits of the card or account used.
type receipt struct {
	// Reference is the receivable's or payable's id: what the sender sees
	// in the API and the dashboard, so quoting it finds the payment.
	Reference string
	// Date is shown; DateTime is the machine-readable form (RFC 3339).
	Date, DateTime string
	// Method reads "Visa ending 4242" or "Bank account ending 6789".
	Method      string
	MethodLabel string // "Paid with", "Card used", "Sent to" or "Destination"
}

// receiptOf returns the receipt of an item the page shows without a form:
// the reference always, the date once paid or disbursed, the card or
// account once one was used.
func receiptOf(it txn.Item) *receipt {
	r := &receipt{Reference: it.ID}
	if it.Direction == txn.Payable {
		r.MethodLabel = "Destination"
		if d := it.Destination; d != nil && d.Last4 != "" {
			kind := "Bank account"
			if d.Type == txn.DebitCard {
				kind = "Debit card"
			}
			r.Method = kind + " ending " + d.Last4
		}
		if it.Status == txn.Disbursed && it.DisbursedAt != nil {
			r.MethodLabel = "Sent to"
			r.setDate(*it.DisbursedAt)
		}
		return r
	}
	r.MethodLabel = "Card used"
	if it.CardLast4 != nil && *it.CardLast4 != "" {
		r.Method = cardBrand(it.CardBrand) + " ending " + *it.CardLast4
	}
	if it.Status == txn.Paid && it.PaidAt != nil {
		r.MethodLabel = "Paid with"
		r.setDate(*it.PaidAt)
	}
	if it.PaymentMethod != nil && *it.PaymentMethod == txn.MethodOutOfBand {
		r.Method = "" // settled outside Paylane: no card of ours was used
	}
	return r
}

func (r *receipt) setDate(t time.Time) {
	t = t.UTC()
	r.Date, r.DateTime = t.Format("2 January 2006, 15:04 UTC"), t.Format(time.RFC3339)
}

// cardBrand names a brand as a payer reads it on the card.
func cardBrand(b *string) string {
	if b == nil {
		return "Card"
	}
	switch *b {
	case "visa":
		return "Visa"
	case "mastercard":
		return "Mastercard"
	case "amex":
		return "American Express"
	case "discover":
		return "Discover"
	}
	return "Card"
}
