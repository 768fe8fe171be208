package tokens

import "strings"

// maxSecret bounds the secret part; identity-svc issues 48 characters.
const maxSecret = 128

// WellFormed reports whether token has the form pl_<number>|<secret>: a
// positive number without leading zeros and a secret of letters and digits.
// Malformed tokens are refused without asking identity-svc.
func WellFormed(token string) bool {
	rest, ok := strings.CutPrefix(token, "pl_")
	if !ok {
		return false
	}
	num, secret, ok := strings.Cut(rest, "|")
	if !ok || num == "" || len(num) > 18 || num[0] == '0' || secret == "" || len(secret) > maxSecret {
		return false
	}
	for i := 0; i < len(num); i++ {
		if num[i] < '0' || num[i] > '9' {
			return false
		}
	}
	for i := 0; i < len(secret); i++ {
		c := secret[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// Bearer returns the token of an Authorization header value
// "Bearer <token>" (scheme case-insensitive), or false.
func Bearer(header string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}
