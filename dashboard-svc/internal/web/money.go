package web

import (
	"strconv"
	"strings"
)

// money formats an amount in minor units of currency (ISO 4217) for
// people: "$42.00", "€1,250.50", "¥500", or "1,000.00 SEK" for a currency
// without a symbol here.
func money(amount int64, currency string) string {
	neg := amount < 0
	if neg {
		amount = -amount
	}
	digits := minorDigits(currency)
	s := strconv.FormatInt(amount, 10)
	if len(s) <= digits {
		s = strings.Repeat("0", digits-len(s)+1) + s
	}
	whole, frac := s[:len(s)-digits], s[len(s)-digits:]
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	n := b.String()
	if digits > 0 {
		n += "." + frac
	}
	sign := ""
	if neg {
		sign = "-"
	}
	if sym := currencySymbol(currency); sym != "" {
		return sign + sym + n
	}
	return sign + n + " " + currency
}

// minorDigits is how many digits of an amount are the fraction (ISO 4217
// minor units): 2 but for the currencies listed.
func minorDigits(currency string) int {
	switch currency {
	case "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "VND", "VUV", "XAF", "XOF", "XPF":
		return 0
	case "BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND":
		return 3
	}
	return 2
}

func currencySymbol(currency string) string {
	switch currency {
	case "USD":
		return "$"
	case "EUR":
		return "€"
	case "GBP":
		return "£"
	case "JPY":
		return "¥"
	case "INR":
		return "₹"
	case "CAD":
		return "CA$"
	case "AUD":
		return "A$"
	case "NZD":
		return "NZ$"
	case "MXN":
		return "MX$"
	}
	return ""
}
