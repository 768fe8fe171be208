package main

import "testing"

// TestEngineDeadlineRaceIsOnlyTheBareDeadline: the output of a run the
// fuzz engine ended by its deadline race is told apart from every real
// failure: a failing input, a panic, the target's own message (even one
// that names a deadline), a build failure.
func TestEngineDeadlineRaceIsOnlyTheBareDeadline(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		output string
		race   bool
	}{
		{"the race", "fuzz: elapsed: 5s, execs: 161590 (35915/sec), new interesting: 31 (total: 265)\n--- FAIL: FuzzCheck (5.19s)\n    context deadline exceeded\nFAIL\nexit status 1\nFAIL\tgithub.com/paylane/paylane/libs/customfield\t5.201s\n", true},
		{"a failing input", "--- FAIL: FuzzRedactPhone (4.18s)\n    --- FAIL: FuzzRedactPhone (0.00s)\n        redact_fuzz_test.go:117: changed\n    Failing input written to testdata/fuzz/FuzzRedactPhone/af44fb599e26b52a\nFAIL\n", false},
		{"the target's own deadline", "--- FAIL: FuzzDial (3.00s)\n    dial_fuzz_test.go:40: context deadline exceeded\nFAIL\n", false},
		{"a panic", "--- FAIL: FuzzDecode (1.00s)\n    context deadline exceeded\npanic: runtime error: index out of range\n", false},
		{"a build failure", "# github.com/paylane/paylane/libs/obs\nredact.go:12:2: undefined: x\nFAIL\tgithub.com/paylane/paylane/libs/obs [build failed]\n", false},
	} {
		if got := engineDeadlineRace([]byte(tt.output)); got != tt.race {
			t.Errorf("%s: engineDeadlineRace = %v, want %v", tt.name, got, tt.race)
		}
	}
}
