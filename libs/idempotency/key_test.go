package idempotency_test

import (
	"errors"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/idempotency"
)

// TestValidateKey: a key is at most 128 characters of printable UTF-8; a
// byte that is not UTF-8, NUL or another control character is 422 naming
// the header, as a longer key is.
func TestValidateKey(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, key string
		ok        bool
	}{
		{"ulid", "01JD6S8Q3X5V2N4M7K9P0R1T2W", true},
		{"uuid and spaces", "order 42: 0d5e1c1e-1e5b-4e0b-9a9e-2b1f9c6b7d10", true},
		{"multibyte", strings.Repeat("é", 128), true},
		{"too long", strings.Repeat("k", 129), false},
		{"not UTF-8", "key-\xff", false},
		{"truncated UTF-8", "key-\xe2\x82", false},
		{"NUL", "key\x00", false},
		{"tab", "key\tx", false},
		{"newline", "key\nx", false},
		{"DEL", "key\x7f", false},
		{"C1 control", "key\u0085", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := idempotency.ValidateKey(tt.key)
			if tt.ok {
				if err != nil {
					t.Fatalf("ValidateKey(%q) = %v, want nil", tt.key, err)
				}
				return
			}
			var ae *apierr.Error
			if !errors.As(err, &ae) || ae.Status != 422 || ae.Code != apierr.CodeValidationFailed {
				t.Fatalf("ValidateKey(%q) = %v, want 422 validation_failed", tt.key, err)
			}
			if _, ok := ae.Details.(map[string][]string)[idempotency.HeaderKey]; !ok {
				t.Errorf("details %v do not name %s", ae.Details, idempotency.HeaderKey)
			}
		})
	}
}

// TestKeyWithBytesThatAreNotText: through the middleware, such a key is a
// 422 before anything runs or is stored, never a 500.
func TestKeyWithBytesThatAreNotText(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, key := range []string{"k\xff", "k\xc0\x80", "k\x01"} {
		r := e.post(t, tenantA, key, `{"name":"x"}`)
		if r.status != 422 || !strings.Contains(string(r.body), `"Idempotency-Key"`) {
			t.Errorf("key %q: %d %s, want 422 naming Idempotency-Key", key, r.status, r.body)
		}
	}
}

// FuzzValidateKey: ValidateKey never panics; a refusal is a 422 naming
// Idempotency-Key; an accepted key is at most 128 characters of UTF-8
// holding no control character (so no NUL).
func FuzzValidateKey(f *testing.F) {
	for _, seed := range []string{"01JD6S8Q3X5V2N4M7K9P0R1T2W", "k\x00", "k\xff", strings.Repeat("é", 128), strings.Repeat("k", 129), "a\tb", "\u0085", "order-42"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, key string) {
		err := idempotency.ValidateKey(key)
		if err != nil {
			var ae *apierr.Error
			if !errors.As(err, &ae) || ae.Status != 422 {
				t.Fatalf("ValidateKey(%q) = %v, want a 422 *apierr.Error", key, err)
			}
			if _, ok := ae.Details.(map[string][]string)[idempotency.HeaderKey]; !ok {
				t.Fatalf("details %v do not name the header", ae.Details)
			}
			return
		}
		if !utf8.ValidString(key) || utf8.RuneCountInString(key) > idempotency.MaxKeyLength ||
			strings.IndexFunc(key, unicode.IsControl) >= 0 {
			t.Fatalf("accepted %q", key)
		}
	})
}
