package main

import (
	"context"
	"slices"
	"testing"
)

// TestDiscoverFindsTheFuzzTargets: discovery reads the targets from the
// packages themselves; this module's own is found, by package and name.
func TestDiscoverFindsTheFuzzTargets(t *testing.T) {
	targets, err := discover(context.Background(), "github.com/paylane/paylane/deploy/...")
	if err != nil {
		t.Fatal(err)
	}
	want := target{pkg: "github.com/paylane/paylane/deploy/internal/apifuzz", name: "FuzzRequest"}
	if !slices.Contains(targets, want) {
		t.Fatalf("discovered %+v, want %+v among them", targets, want)
	}
	for _, tg := range targets {
		if tg.pkg == "" || tg.name == "" {
			t.Errorf("target %+v has an empty package or name", tg)
		}
	}
}
