package reqid_test

import (
	"context"
	"strings"
	"testing"

	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/reqid"
)

func TestResolve(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		echo bool
	}{
		{"ulid", "01JD3X0Q4Z8W2E5R7T9Y1V3K5M", true},
		{"uuid", "3f1c2b9e-7a4d-4c1e-9b2a-5d6e7f8a9b0c", true},
		{"upper uuid", "3F1C2B9E-7A4D-4C1E-9B2A-5D6E7F8A9B0C", true},
		{"empty", "", false},
		{"free text", "hello", false},
		{"100 characters", strings.Repeat("a", 100), false},
		{"uuid without dashes", "3f1c2b9e7a4d4c1e9b2a5d6e7f8a9b0c", false},
		{"header injection", "01JD3X0Q4Z8W2E5R7T9Y1V3K5M\r\nX: y", false},
		{"NUL", "01JD3X0Q4Z8W2E5R7T9Y1V3K5\x00", false},
		{"ulid then NUL", "01JD3X0Q4Z8W2E5R7T9Y1V3K5M\x00", false},
		{"not UTF-8", "01JD3X0Q4Z8W2E5R7T9Y1V3K5\xff", false},
		{"uuid with a byte that is not UTF-8", "3f1c2b9e-7a4d-4c1e-9b2a-5d6e7f8a9b\xff\xfe", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := reqid.Resolve(tt.in)
			if tt.echo && got != tt.in {
				t.Errorf("Resolve(%q) = %q, want it echoed", tt.in, got)
			}
			if !tt.echo && (got == tt.in || !ids.Valid(got)) {
				t.Errorf("Resolve(%q) = %q, want a fresh ULID", tt.in, got)
			}
		})
	}
}

func TestContext(t *testing.T) {
	t.Parallel()
	if got := reqid.From(context.Background()); got != "" {
		t.Errorf("From(empty) = %q", got)
	}
	ctx := reqid.With(context.Background(), "abc")
	if got := reqid.From(ctx); got != "abc" {
		t.Errorf("From = %q, want abc", got)
	}
}
