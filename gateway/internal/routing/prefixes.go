package routing

import (
	"sort"
	"strings"
)

// Pair sends every path under Prefix to Upstream.
type Pair struct {
	Prefix   string
	Upstream string
}

// Prefixes finds the upstream of a path: the longest prefix that matches
// whole segments (/api/v1/contacts matches /api/v1/contacts and
// /api/v1/contacts/01H..., not /api/v1/contactsx). A prefix segment "*"
// matches any one segment, so /admin/v1/tenants/*/messages can go to
// another service than /admin/v1/tenants.
type Prefixes struct {
	pairs    []Pair   // longest prefix first
	patterns []string // pairs[i].Prefix + "/*": the route label of its paths
}

// NewPrefixes returns the table of the given pairs.
func NewPrefixes(pairs []Pair) *Prefixes {
	p := &Prefixes{pairs: append([]Pair(nil), pairs...)}
	sort.SliceStable(p.pairs, func(i, j int) bool { return len(p.pairs[i].Prefix) > len(p.pairs[j].Prefix) })
	for _, pair := range p.pairs {
		p.patterns = append(p.patterns, pair.Prefix+"/*")
	}
	return p
}

// Match returns the pair whose prefix is the longest one matching path.
func (p *Prefixes) Match(path string) (Pair, bool) {
	pair, _, ok := p.MatchPattern(path)
	return pair, ok
}

// MatchPattern is Match that also returns the pair's route pattern
// (<prefix>/*), built once: a bounded label for the request's metrics.
func (p *Prefixes) MatchPattern(path string) (Pair, string, bool) {
	for i, pair := range p.pairs {
		if UnderPrefix(path, pair.Prefix) {
			return pair, p.patterns[i], true
		}
	}
	return Pair{}, "", false
}

// UnderPrefix reports whether path is prefix or lies below it, on a segment
// boundary; a "*" segment of prefix matches any one non-empty segment.
func UnderPrefix(path, prefix string) bool {
	prefix = strings.TrimSuffix(prefix, "/")
	if !strings.Contains(prefix, "*") {
		return prefix == "" || path == prefix || strings.HasPrefix(path, prefix+"/")
	}
	want := strings.Split(prefix, "/")
	got := strings.SplitN(path, "/", len(want)+1)
	if len(got) < len(want) {
		return false
	}
	for i, seg := range want {
		if seg == "*" && got[i] != "" {
			continue
		}
		if got[i] != seg {
			return false
		}
	}
	return true
}
