package main

import "testing"

func TestScaleLiveCountsTheContactsNotDeleted(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 99, 100, 101, 199, 200, 10_000, 1_000_000} {
		want := 0
		for i := range n {
			if !scaleDeleted(i) {
				want++
			}
		}
		if got := scaleLive(n); got != want {
			t.Errorf("scaleLive(%d) = %d, want %d", n, got, want)
		}
	}
}
