package token

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Mint is a request to create a token.
type Mint struct {
	Name      string
	Abilities []string
	ExpiresAt *time.Time
}

// Validate checks a mint request at now; known reports whether an ability
// exists. It returns the messages per field, or nil. The wildcard "*" is
// refused: a token lists its abilities explicitly.
func (m Mint) Validate(now time.Time, known func(string) bool) map[string][]string {
	out := map[string][]string{}
	switch name := strings.TrimSpace(m.Name); {
	case name == "":
		out["name"] = []string{"The name field is required."}
	case utf8.RuneCountInString(name) > MaxNameLength:
		out["name"] = []string{fmt.Sprintf("The name field must not be greater than %d characters.", MaxNameLength)}
	}
	if msgs := ValidateAbilities(m.Abilities, known); msgs != nil {
		out["abilities"] = msgs
	}
	if m.ExpiresAt != nil && !m.ExpiresAt.After(now) {
		out["expires_at"] = []string{"The expires at field must be a date in the future."}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// ValidateAbilities checks a list of abilities that a token or a service
// token is to carry: not empty, no wildcard, every one known. It returns
// the messages for the abilities field, or nil.
func ValidateAbilities(abilities []string, known func(string) bool) []string {
	if len(abilities) == 0 {
		return []string{"The abilities field is required."}
	}
	var msgs, unknown []string
	for _, a := range abilities {
		switch {
		case a == "*":
			msgs = append(msgs, `The abilities field may not contain "*": list the abilities (the CLI expands "all").`)
		case !known(a):
			unknown = append(unknown, a)
		}
	}
	if len(unknown) > 0 {
		msgs = append(msgs, "Unknown abilities: "+strings.Join(unknown, ", ")+".")
	}
	return msgs
}

// Normalize returns the mint request with the name trimmed and the abilities
// deduplicated in their given order.
func (m Mint) Normalize() Mint {
	m.Name = strings.TrimSpace(m.Name)
	m.Abilities = dedupe(m.Abilities)
	return m
}

// dedupe returns the abilities without repeats, in their given order.
func dedupe(in []string) []string {
	seen := make(map[string]bool, len(in))
	out := make([]string, 0, len(in))
	for _, a := range in {
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	return slices.Clip(out)
}
