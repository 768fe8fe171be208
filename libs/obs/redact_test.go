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
			"/l/r/01HZX3K5Q8V9W2Y4Z6A7B8C9DE?expires=1700000000&signature=redacted"},
		{"punctuated path", "/api/v1/suppression-list/(415)%20354-6544", "/api/v1/suppression-list/(***)%20***-6544"},
		{"encoded parentheses in query", "/api/v1/contacts?phone=%28415%29%20354-6544&page=2", "/api/v1/contacts?phone=%28***%29%20***-6544&page=2"},
		{"plus as space in query", "/api/v1/contacts?phone=+1+415+585+4147", "/api/v1/contacts?phone=+*+***+***+4147"},
		{"encoded plus and spaces", "/api/v1/contacts?phone=%2B1%20415%20585%204147", "/api/v1/contacts?phone=%2B*%20***%20***%204147"},
		{"dots in path", "/api/v1/suppression-list/415.351.8446?channel=sms", "/api/v1/suppression-list/***.***.8446?channel=sms"},
		{"number after a version segment", "/api/v1/4155551234", "/api/v1/******1234"},
		{"due date and per page kept", "/api/v1/receivables?created_since=2026-11-22T01:21:17Z&per_page=100", "/api/v1/receivables?created_since=2026-11-22T01:21:17Z&per_page=100"},
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

// TestRedactPhoneNotations: every notation libs/phone accepts keeps only
// its last four digits, raw or percent-encoded.
func TestRedactPhoneNotations(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"(415) 354-6544", "(***) ***-6544"},
		{"+1 415 585 4147", "+* *** *** 4147"},
		{"415.351.8446", "***.***.8446"},
		{"415-351-8446", "***-***-8446"},
		{"415 351 8446", "*** *** 8446"},
		{"+1 (415) 354-6544", "+* (***) ***-6544"},
		{"+1-415-354-6544", "+*-***-***-6544"},
		{"1 415 354 6544", "* *** *** 6544"},
		{"+44 20 7946 0958", "+** ** **** 0958"},
		{"020 7946 0958", "*** **** 0958"},
		{"0044 20 7946 0958", "**** ** **** 0958"},
		{"030/1234567", "***/***4567"},
		{"+4930123456", "+******3456"},
		{"%28415%29%20354-6544", "%28***%29%20***-6544"},
		{"+1+415+585+4147", "+*+***+***+4147"},
		{"%2B1%20415%20585%204147", "%2B*%20***%20***%204147"},
		{"%2B14155854147", "%2B*******4147"},
		{"%2b14155854147", "%2b*******4147"},
		{"%34%31%35%35%38%35%34%31%34%37", "%2A%2A%2A%2A%2A%2A%34%31%34%37"},
		{"tel:+1-415-585-4147", "tel:+*-***-***-4147"},
		{"+14155854147x123", "+*******4147x123"},
		{"+1 415 585 4147 ext. 12", "+* *** *** 4147 ext. 12"},
		{`{"phone":"(415) 354-6544"}`, `{"phone":"(***) ***-6544"}`},
		{"phone:4155854147", "phone:******4147"},
		{"v1/4155854147", "v1/******4147"},
		{"order 12 (415) 354-6544", "order ** (***) ***-6544"},
		{"id a1 (415) 354-6544", "id a1 (***) ***-6544"},
		{"4242424242424242", "************4242"},
		{"4242 4242 4242 4242", "**** **** **** 4242"},
		{"4000-0000-0000-0002", "****-****-****-0002"},
		{"354-6544", "***-6544"},
		{"+290 1234", "+*** 1234"},
		{"４１５ ３５４ ６５４４", "********* ********* ６５４４"},
		{"+1 415\u2013354\u20136544", "+* ***\u2013***\u20136544"},
		{"٤١٥٣٥٤٦٥٤٤", "************٦٥٤٤"},
	}
	for _, tt := range tests {
		if got := obs.RedactPhone(tt.in); got != tt.want {
			t.Errorf("RedactPhone(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestRedactPhoneKeeps: what is not a phone number comes out unchanged.
func TestRedactPhoneKeeps(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"01HZX3K5Q8V9W2Y4Z6A7B8C9DE",
		"01JD3X0Q4Z8W2E5R7T9Y1V3K5N",
		"0123456789ABCDEFGHJKMNPQRS",
		"123e4567-e89b-12d3-a456-426614174000",
		"550e8400-e29b-41d4-a716-446655440000",
		"9f1c2d3e-4b5a-4c6d-8e7f-123456789012",
		"2026-11-22T01:21:17.123Z",
		"2026-11-22T01:21:17.123456789+01:00",
		"2026-11-22 01:21:17.123456789 +0000 UTC",
		"2026-11-22",
		"due 2026/11/22",
		"01:21:17",
		"amount 99999999",
		"amount 12345678 currency USD",
		"99999999",
		"1 MB",
		"192.168.100.200",
		"127.0.0.1:54321",
		"[::1]:8080",
		"0.123456789",
		"took 1.2345678s",
		"go1.26.8",
		"v2.52.15",
		"SQLSTATE 23505",
		"sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"pl_12|aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6kM9nP2rS5uX8",
		"whsec_MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY2Nzg5MDE=",
		"request_id=01JD3X0Q4Z8W2E5R7T9Y1V3K5N",
		"+12345678901234567890",
		"12345678901234567890",
		"4242424242424241",
		"partition 3 offset 12345",
		"+*******4567",
		"(***) ***-6544",
		"%2B*%20***%20***%204147",
		"",
	} {
		if got := obs.RedactPhone(in); got != in {
			t.Errorf("RedactPhone(%q) = %q, want it unchanged", in, got)
		}
	}
}
