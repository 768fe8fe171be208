package obs_test

import (
	"testing"

	"github.com/paylane/paylane/libs/obs"
)

func TestRedactPhone(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"e164", "+15551234567", "+*******4567"},
		{"in text", "sms to +447911123456 failed", "sms to +********3456 failed"},
		{"url encoded plus", "/suppression-list/%2B15551234567", "/suppression-list/%2B*******4567"},
		{"national in query", "phone=5551234567", "phone=******4567"},
		{"two numbers", "+15551234567,+15557654321", "+*******4567,+*******4321"},
		{"ulid untouched", "01HZX3K5Q8V9W2Y4Z6A7B8C9DE", "01HZX3K5Q8V9W2Y4Z6A7B8C9DE"},
		{"uuid untouched", "123e4567-e89b-12d3-a456-426614174000", "123e4567-e89b-12d3-a456-426614174000"},
		{"short number untouched", "amount 99999999", "amount 99999999"},
		{"too long untouched", "+12345678901234567890", "+12345678901234567890"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := obs.RedactPhone(tt.in); got != tt.want {
				t.Errorf("RedactPhone(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestRedactPath(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"path only", "/api/v1/suppression-list/%2B15551234567", "/api/v1/suppression-list/%2B*******4567"},
		{"query phone", "/api/v1/contacts?phone=%2B15551234567&page=2", "/api/v1/contacts?phone=%2B*******4567&page=2"},
		{"signature hidden", "/l/r/01HZX3K5Q8V9W2Y4Z6A7B8C9DE?expires=1700000000&signature=abcdef",
			"/l/r/01HZX3K5Q8V9W2Y4Z6A7B8C9DE?expires=******0000&signature=redacted"},
		{"csrf hidden", "/l/o/code?_csrf=zzz", "/l/o/code?_csrf=redacted"},
		{"plain", "/api/v1/contacts", "/api/v1/contacts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := obs.RedactPath(tt.in); got != tt.want {
				t.Errorf("RedactPath(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
