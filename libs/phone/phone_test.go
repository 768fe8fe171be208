package phone_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/paylane/paylane/libs/phone"
)

func TestNormalize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		input   string
		region  string
		want    string
		wantErr error
	}{
		{name: "e164 as is", input: "+14155552671", region: "US", want: "+14155552671"},
		{name: "international with spaces", input: "+1 202 555 0143", region: "US", want: "+12025550143"},
		{name: "us national formatted", input: "(415) 555-2671", region: "US", want: "+14155552671"},
		{name: "us national dashes", input: "650-253-0000", region: "US", want: "+16502530000"},
		{name: "region is case-insensitive", input: "415 555 2671", region: "us", want: "+14155552671"},
		{name: "country code wins over region", input: "+44 20 7946 0958", region: "US", want: "+442079460958"},
		{name: "gb national in gb", input: "020 7946 0958", region: "GB", want: "+442079460958"},
		{name: "gb national read as us", input: "020 7946 0958", region: "US", wantErr: phone.ErrInvalid},
		{name: "gb idd from gb", input: "00 1 415 555 2671", region: "GB", want: "+14155552671"},
		{name: "surrounding space", input: "  +14155552671 ", region: "US", want: "+14155552671"},
		{name: "national without region", input: "415 555 2671", region: "", wantErr: phone.ErrUnparseable},
		{name: "empty", input: "", region: "US", wantErr: phone.ErrUnparseable},
		{name: "blank", input: "   ", region: "US", wantErr: phone.ErrUnparseable},
		{name: "letters", input: "call me", region: "US", wantErr: phone.ErrUnparseable},
		{name: "too long", input: strings.Repeat("1", 300), region: "US", wantErr: phone.ErrUnparseable},
		{name: "too short", input: "12345", region: "US", wantErr: phone.ErrInvalid},
		{name: "one digit missing", input: "+1415555267", region: "US", wantErr: phone.ErrInvalid},
		{name: "unassigned us range", input: "+15555550100", region: "US", wantErr: phone.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := phone.Normalize(tt.input, tt.region)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Normalize(%q, %q) error = %v, want %v", tt.input, tt.region, err, tt.wantErr)
				}
				if got != "" {
					t.Errorf("Normalize returned %q with an error", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("Normalize(%q, %q): %v", tt.input, tt.region, err)
			}
			if got != tt.want {
				t.Errorf("Normalize(%q, %q) = %q, want %q", tt.input, tt.region, got, tt.want)
			}
		})
	}
}

func TestNormalizeErrorsDoNotRepeatTheNumber(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"+1415555267", "020 7946 0958x", "+999 123 456 789"} {
		_, err := phone.Normalize(in, "US")
		if err == nil {
			t.Fatalf("Normalize(%q) accepted an invalid number", in)
		}
		if strings.Contains(err.Error(), "555267") || strings.Contains(err.Error(), "7946") || strings.Contains(err.Error(), "456") {
			t.Errorf("error %q repeats the number", err)
		}
	}
}

func TestLast4(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"+14155552671", "2671"},
		{"+442079460958", "0958"},
		{"+1234", "1234"},
		{"+12", "12"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := phone.Last4(tt.in); got != tt.want {
			t.Errorf("Last4(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// BenchmarkNormalize measures the forms the API receives most: a number
// already in E.164 and a national number read in the tenant's region.
func BenchmarkNormalize(b *testing.B) {
	for _, bc := range []struct{ name, input, region string }{
		{"e164", "+14155552671", "US"},
		{"e164-gb", "+442079460958", "US"},
		{"national", "(415) 555-2671", "US"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := phone.Normalize(bc.input, bc.region); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
