package optin_test

import (
	"testing"
	"time"

	"github.com/paylane/paylane/optin-svc/internal/optin"
)

func TestContactStatus(t *testing.T) {
	t.Parallel()
	c := func(status string) optin.Consent { return optin.Consent{Status: status} }
	tests := []struct {
		name       string
		suppressed bool
		consents   []optin.Consent
		want       string
	}{
		{"nothing", false, nil, optin.OptInNone},
		{"suppressed beats confirmed", true, []optin.Consent{c("confirmed")}, optin.OptInOptedOut},
		{"suppressed alone", true, nil, optin.OptInOptedOut},
		{"confirmed beats pending and revoked", false, []optin.Consent{c("revoked"), c("pending"), c("confirmed")}, optin.OptInOptedIn},
		{"pending beats revoked", false, []optin.Consent{c("revoked"), c("pending")}, optin.OptInPending},
		{"revoked", false, []optin.Consent{c("revoked")}, optin.OptInOptedOut},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := optin.ContactStatus(tt.suppressed, tt.consents); got != tt.want {
				t.Errorf("ContactStatus() = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestConsentMoves(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	tests := []struct {
		from                  string
		confirms, revokes     bool
		afterConfirm, afterRv string
	}{
		{optin.ConsentPending, true, true, optin.ConsentConfirmed, optin.ConsentRevoked},
		{optin.ConsentConfirmed, false, true, optin.ConsentConfirmed, optin.ConsentRevoked},
		{optin.ConsentRevoked, false, false, optin.ConsentRevoked, optin.ConsentRevoked},
	}
	for _, tt := range tests {
		t.Run(tt.from, func(t *testing.T) {
			t.Parallel()
			c := optin.Consent{Status: tt.from}
			if got := c.Confirm(at); got != tt.confirms || c.Status != tt.afterConfirm {
				t.Errorf("Confirm() = %v, status %s", got, c.Status)
			}
			c = optin.Consent{Status: tt.from}
			if got := c.Revoke(at); got != tt.revokes || c.Status != tt.afterRv {
				t.Errorf("Revoke() = %v, status %s", got, c.Status)
			}
		})
	}
}

func TestPublicCodes(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 200 {
		code := optin.NewPublicCode()
		if len(code) != 10 {
			t.Fatalf("code %q has %d characters", code, len(code))
		}
		for _, r := range code {
			if r == '0' || r == '1' || r == 'i' || r == 'l' || r == 'o' || !(r >= 'a' && r <= 'z' || r >= '2' && r <= '9') {
				t.Fatalf("code %q has %q", code, r)
			}
		}
		if seen[code] {
			t.Fatalf("code %q repeated", code)
		}
		seen[code] = true
	}
}
