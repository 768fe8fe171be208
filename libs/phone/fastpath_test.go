package phone

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/nyaruka/phonenumbers"
	"google.golang.org/protobuf/proto"
)

// TestNANPFastPathMatchesParse checks the fast path against the library:
// for every input it takes, the number it builds is the one Parse returns,
// and Normalize answers what the Parse path answers (valid or not).
func TestNANPFastPathMatchesParse(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	inputs := []string{"+14155552671", "+12025550143", "+15555550100", "+12000000000", "+19999999999", "+18005550199", "+16502530000"}
	for area := 200; area <= 999; area++ { // every area code, valid or not
		inputs = append(inputs, fmt.Sprintf("+1%03d%07d", area, rng.IntN(10_000_000)))
	}
	for range 20_000 {
		inputs = append(inputs, fmt.Sprintf("+1%d%09d", 2+rng.IntN(8), rng.IntN(1_000_000_000)))
	}
	valid := 0
	for _, in := range inputs {
		fast, ok := nanpE164(in)
		if !ok {
			t.Fatalf("nanpE164(%q) refused a +1 number of ten digits", in)
		}
		parsed, err := phonenumbers.Parse(in, "GB")
		if err != nil {
			t.Fatalf("Parse(%q): %v", in, err)
		}
		if !proto.Equal(fast, parsed) {
			t.Fatalf("nanpE164(%q) = %v, Parse = %v", in, fast, parsed)
		}
		got, gotErr := Normalize(in, "GB")
		want, wantErr := parse(in, "GB")
		if got != want || errors.Is(gotErr, ErrInvalid) != errors.Is(wantErr, ErrInvalid) || (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("Normalize(%q) = %q, %v; the Parse path says %q, %v", in, got, gotErr, want, wantErr)
		}
		if gotErr == nil {
			valid++
		}
	}
	if valid == 0 || valid == len(inputs) {
		t.Errorf("%d of %d inputs valid: the sample should hold both kinds", valid, len(inputs))
	}
}

// TestNANPFastPathLeavesOtherInputToParse: anything but "+1" and ten digits
// (first 2 to 9) goes through Parse.
func TestNANPFastPathLeavesOtherInputToParse(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"+11155552671",  // first digit 1: the national prefix
		"+10155552671",  // first digit 0
		"+1415555267",   // nine digits
		"+141555526712", // eleven digits
		"+1415555267a",
		"+1 415555267",
		"+442079460958",
		"14155552671",
		"+1415555-671",
		"",
	} {
		if _, ok := nanpE164(in); ok {
			t.Errorf("nanpE164(%q) took it", in)
		}
	}
}
