package sandbox

// Luhn reports whether digits (digits only) pass the Luhn checksum.
func Luhn(digits string) bool {
	if digits == "" {
		return false
	}
	sum := 0
	double := false
	for i := len(digits) - 1; i >= 0; i-- {
		c := digits[i]
		if c < '0' || c > '9' {
			return false
		}
		d := int(c - '0')
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}

// ABA reports whether s is a 9-digit ABA routing number with a valid
// checksum: 3(d1+d4+d7) + 7(d2+d5+d8) + (d3+d6+d9) ≡ 0 (mod 10).
func ABA(s string) bool {
	if len(s) != 9 {
		return false
	}
	weights := [3]int{3, 7, 1}
	sum := 0
	for i := 0; i < 9; i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return false
		}
		sum += int(c-'0') * weights[i%3]
	}
	return sum%10 == 0
}

// ValidAccountNumber reports whether s is 4 to 17 digits.
func ValidAccountNumber(s string) bool {
	if len(s) < 4 || len(s) > 17 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// ValidCardNumber reports whether s (digits only) is a 12 to 19 digit number
// passing Luhn.
func ValidCardNumber(s string) bool {
	return len(s) >= 12 && len(s) <= 19 && Luhn(s)
}
