package token

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	past, future := now.Add(-time.Second), now.Add(time.Second)
	base := Token{ID: 1, SecretSHA256: Hash("right")}
	tests := []struct {
		name   string
		mutate func(*Token)
		secret string
		want   error
	}{
		{"valid", func(*Token) {}, "right", nil},
		{"valid until expiry", func(t *Token) { t.ExpiresAt = &future }, "right", nil},
		{"wrong secret", func(*Token) {}, "wrong", ErrInvalid},
		{"revoked", func(t *Token) { t.RevokedAt = &past }, "right", ErrRevoked},
		{"expired", func(t *Token) { t.ExpiresAt = &past }, "right", ErrExpired},
		{"expires now", func(t *Token) { t.ExpiresAt = &now }, "right", ErrExpired},
		{"wrong secret of a revoked token", func(t *Token) { t.RevokedAt = &past }, "wrong", ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tok := base
			tt.mutate(&tok)
			if err := tok.Check(tt.secret, now); !errors.Is(err, tt.want) || (tt.want == nil && err != nil) {
				t.Errorf("Check() = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestNeedsTouch(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	recent, stale := now.Add(-30*time.Second), now.Add(-TouchInterval)
	tests := []struct {
		name string
		last *time.Time
		want bool
	}{
		{"never used", nil, true},
		{"used recently", &recent, false},
		{"used an interval ago", &stale, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := (Token{LastUsedAt: tt.last}).NeedsTouch(now); got != tt.want {
				t.Errorf("NeedsTouch() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestMintValidate(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	known := func(a string) bool { return slices.Contains([]string{"api:view-contact", "api:create-contact"}, a) }
	future, past := now.Add(time.Hour), now.Add(-time.Hour)
	long := string(make([]rune, MaxNameLength+1))
	tests := []struct {
		name       string
		mint       Mint
		wantFields []string
	}{
		{"valid", Mint{Name: "ci", Abilities: []string{"api:view-contact"}, ExpiresAt: &future}, nil},
		{"missing name", Mint{Abilities: []string{"api:view-contact"}}, []string{"name"}},
		{"blank name", Mint{Name: "  ", Abilities: []string{"api:view-contact"}}, []string{"name"}},
		{"long name", Mint{Name: long, Abilities: []string{"api:view-contact"}}, []string{"name"}},
		{"no abilities", Mint{Name: "ci"}, []string{"abilities"}},
		{"unknown ability", Mint{Name: "ci", Abilities: []string{"api:view-contact", "api:fly"}}, []string{"abilities"}},
		{"wildcard", Mint{Name: "ci", Abilities: []string{"*"}}, []string{"abilities"}},
		{"expiry in the past", Mint{Name: "ci", Abilities: []string{"api:view-contact"}, ExpiresAt: &past}, []string{"expires_at"}},
		{"expiry now", Mint{Name: "ci", Abilities: []string{"api:view-contact"}, ExpiresAt: &now}, []string{"expires_at"}},
		{"everything wrong", Mint{Abilities: []string{"x"}, ExpiresAt: &past}, []string{"abilities", "expires_at", "name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for f := range tt.mint.Validate(now, known) {
				got = append(got, f)
			}
			slices.Sort(got)
			if diff := cmp.Diff(tt.wantFields, got); diff != "" {
				t.Errorf("Validate() fields (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMintValidateNamesUnknownAbilities(t *testing.T) {
	t.Parallel()
	m := Mint{Name: "ci", Abilities: []string{"api:view-contact", "api:fly", "api:swim"}}
	got := m.Validate(time.Now(), func(a string) bool { return a == "api:view-contact" })
	want := map[string][]string{"abilities": {"Unknown abilities: api:fly, api:swim."}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Validate() (-want +got):\n%s", diff)
	}
}

func TestMintNormalize(t *testing.T) {
	t.Parallel()
	got := Mint{Name: " ci ", Abilities: []string{"b", "a", "b"}}.Normalize()
	want := Mint{Name: "ci", Abilities: []string{"b", "a"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Normalize() (-want +got):\n%s", diff)
	}
}
