// Package phone normalises phone numbers to E.164 with
// github.com/nyaruka/phonenumbers (a port of Google's libphonenumber), so every
// service agrees on the canonical form of a number: the identity of a contact.
package phone

import (
	"errors"
	"fmt"
	"strings"

	"github.com/nyaruka/phonenumbers"
)

// Errors of Normalize. Both mean the input is not a usable phone number; they
// differ only in why, for logs and tests.
var (
	// ErrUnparseable: the input does not read as a phone number at all (empty,
	// letters only, too long, a national number without a known region).
	ErrUnparseable = errors.New("phone: not a phone number")
	// ErrInvalid: the input reads as a number that cannot exist (a wrong
	// length or an unassigned range for its country).
	ErrInvalid = errors.New("phone: not a valid phone number")
)

// maxInput bounds the input accepted; libphonenumber refuses longer strings.
const maxInput = 250

// Normalize returns input in E.164 form ("+14155550123"). A number written
// with its country code ("+44 20 7946 0958", "0044 ...") is read as such; a
// national number ("(415) 555-0123") is read in region, an ISO 3166-1 alpha-2
// code such as "US" (case-insensitive). Errors wrap ErrUnparseable or
// ErrInvalid and never repeat the number.
func Normalize(input, region string) (string, error) {
	input = strings.TrimSpace(input)
	if input == "" || len(input) > maxInput {
		return "", ErrUnparseable
	}
	if num, ok := nanpE164(input); ok {
		// A number valid in the US is valid: IsValidNumber would find the US
		// first among the +1 regions and check it again there.
		if !phonenumbers.IsValidNumberForRegion(num, "US") && !phonenumbers.IsValidNumber(num) {
			return "", ErrInvalid
		}
		return input, nil
	}
	return parse(input, region)
}

// parse is Normalize through libphonenumber's Parse, for any input.
func parse(input, region string) (string, error) {
	num, err := phonenumbers.Parse(input, strings.ToUpper(strings.TrimSpace(region)))
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrUnparseable, err)
	}
	if !phonenumbers.IsValidNumber(num) {
		return "", ErrInvalid
	}
	return phonenumbers.Format(num, phonenumbers.E164), nil
}

// Last4 returns the last four digits of a number, the only part of it that
// lists, previews and logs show. A number with fewer than four digits is
// returned as its digits.
func Last4(e164 string) string {
	digits := make([]byte, 0, len(e164))
	for i := 0; i < len(e164); i++ {
		if c := e164[i]; c >= '0' && c <= '9' {
			digits = append(digits, c)
		}
	}
	if len(digits) <= 4 {
		return string(digits)
	}
	return string(digits[len(digits)-4:])
}

// nanpE164 reads input that is already a North American number in E.164
// ("+1" and ten digits, the first 2 to 9) without Parse, whose extension and
// punctuation regular expressions cost about half of Normalize; the number
// is the one Parse returns for it (TestNANPFastPathMatchesParse), so only
// the validity check is left to do. ok is false for any other input.
func nanpE164(input string) (*phonenumbers.PhoneNumber, bool) {
	if len(input) != 12 || input[0] != '+' || input[1] != '1' || input[2] < '2' || input[2] > '9' {
		return nil, false
	}
	var national uint64
	for i := 2; i < len(input); i++ {
		c := input[i]
		if c < '0' || c > '9' {
			return nil, false
		}
		national = national*10 + uint64(c-'0')
	}
	cc := int32(1)
	return &phonenumbers.PhoneNumber{CountryCode: &cc, NationalNumber: &national}, true
}

// Readable returns an E.164 number in the international format people
// read ("+1 415-555-2671", "+44 20 7946 0958"); input that does not parse
// as a number is returned as it is.
func Readable(e164 string) string {
	num, err := phonenumbers.Parse(e164, "")
	if err != nil {
		return e164
	}
	return phonenumbers.Format(num, phonenumbers.INTERNATIONAL)
}
