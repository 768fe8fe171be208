package token

import (
	"errors"
	"strings"
	"testing"
)

func TestNewSecret(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	counts := map[rune]int{}
	for range 200 {
		s, err := NewSecret()
		if err != nil {
			t.Fatal(err)
		}
		if !validSecret(s) {
			t.Fatalf("NewSecret() = %q, not %d characters of [A-Za-z0-9]", s, SecretLength)
		}
		if seen[s] {
			t.Fatalf("NewSecret() repeated %q", s)
		}
		seen[s] = true
		for _, r := range s {
			counts[r]++
		}
	}
	// 9600 draws over 62 symbols: every symbol must show up.
	if len(counts) != len(alphabet) {
		t.Errorf("secrets used %d distinct characters, want all %d", len(counts), len(alphabet))
	}
}

func TestFormatParseRoundTrip(t *testing.T) {
	t.Parallel()
	secret := strings.Repeat("aZ9", 16)
	for _, id := range []int64{1, 12, 9223372036854775807} {
		s := Format(id, secret)
		gotID, gotSecret, err := Parse(s)
		if err != nil || gotID != id || gotSecret != secret {
			t.Errorf("Parse(%q) = %d, %q, %v; want %d, %q, nil", s, gotID, gotSecret, err, id, secret)
		}
	}
}

func TestParseMalformed(t *testing.T) {
	t.Parallel()
	secret := strings.Repeat("a", SecretLength)
	tests := []struct{ name, in string }{
		{"empty", ""},
		{"no prefix", "12|" + secret},
		{"other prefix", "pk_12|" + secret},
		{"upper prefix", "PL_12|" + secret},
		{"no separator", "pl_12" + secret},
		{"no number", "pl_|" + secret},
		{"zero", "pl_0|" + secret},
		{"leading zero", "pl_012|" + secret},
		{"negative", "pl_-12|" + secret},
		{"plus sign", "pl_+12|" + secret},
		{"not a number", "pl_abc|" + secret},
		{"overflow", "pl_9223372036854775808|" + secret},
		{"short secret", "pl_12|" + secret[1:]},
		{"long secret", "pl_12|" + secret + "a"},
		{"symbol in secret", "pl_12|" + secret[1:] + "-"},
		{"space in secret", "pl_12|" + secret[1:] + " "},
		{"two separators", "pl_12|3|" + secret},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, _, err := Parse(tt.in); !errors.Is(err, ErrMalformed) {
				t.Errorf("Parse(%q) error = %v, want ErrMalformed", tt.in, err)
			}
		})
	}
}
