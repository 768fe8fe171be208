package txn

import (
	"strconv"
	"strings"
)

// Amount limits in minor units (contract section 2).
const (
	MinAmount = 1
	MaxAmount = 99_999_999
)

// DefaultCurrency is the currency of a tenant that has none configured.
const DefaultCurrency = "USD"

// currencies are the active ISO 4217 codes (funds and precious metals
// excluded), space separated with a leading and trailing space.
const currencies = " AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL" +
	" BSD BTN BWP BYN BZD CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB" +
	" EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS" +
	" KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV" +
	" MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK" +
	" SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD USN UYI UYU UYW" +
	" UZS VED VES VND VUV WST XAF XCD XCG XOF XPF YER ZAR ZMW ZWG "

// Currencies whose minor unit is not the hundredth.
const (
	zeroDecimal  = " BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF "
	threeDecimal = " BHD IQD JOD KWD LYD OMR TND "
	fourDecimal  = " CLF UYW "
)

// KnownCurrency reports whether code is an active ISO 4217 code (upper case).
func KnownCurrency(code string) bool {
	return len(code) == 3 && strings.Contains(currencies, " "+code+" ")
}

// MinorDigits is the number of digits of the currency's minor unit.
func MinorDigits(code string) int {
	switch {
	case strings.Contains(zeroDecimal, " "+code+" "):
		return 0
	case strings.Contains(threeDecimal, " "+code+" "):
		return 3
	case strings.Contains(fourDecimal, " "+code+" "):
		return 4
	}
	return 2
}

// FormatAmount renders minor units for people: "$12.50", "€3.00", "£1.99",
// else "1500 JPY", "12.500 KWD".
func FormatAmount(amount int64, currency string) string {
	digits := MinorDigits(currency)
	s := strconv.FormatInt(amount, 10)
	if digits > 0 {
		for len(s) <= digits {
			s = "0" + s
		}
		s = s[:len(s)-digits] + "." + s[len(s)-digits:]
	}
	switch currency {
	case "USD":
		return "$" + s
	case "EUR":
		return "€" + s
	case "GBP":
		return "£" + s
	}
	return s + " " + currency
}
