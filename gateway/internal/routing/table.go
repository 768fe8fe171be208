// Package routing decides where a request goes: whether its path and method
// are documented in the OpenAPI document (Table), and which upstream serves
// its path prefix (Prefixes).
package routing

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Table is the set of documented operations: the paths of the OpenAPI
// document, prefixed with its server URL, and the methods of each.
type Table struct {
	base      string
	templates []template
}

// template is one documented path split into segments; a parameter segment
// ({name}) is stored as "" and matches any one non-empty segment.
type template struct {
	pattern  string // the documented path with the base: /api/v1/contacts/{contact}
	segments []string
	methods  []string // upper case, sorted
}

// method returns the HTTP method a path item key names ("get" → GET), or
// false for the other keys of a path item (summary, parameters, ...).
func method(key string) (string, bool) {
	switch key {
	case "get", "put", "post", "delete", "options", "head", "patch", "trace":
		return strings.ToUpper(key), true
	}
	return "", false
}

// NewTable reads an OpenAPI document (JSON). The document must name exactly
// one server, whose URL is a path (for example /api/v1); its paths are
// relative to it.
func NewTable(doc []byte) (*Table, error) {
	var d struct {
		Servers []struct {
			URL string `json:"url"`
		} `json:"servers"`
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, fmt.Errorf("decoding openapi document: %w", err)
	}
	if len(d.Servers) != 1 || !strings.HasPrefix(d.Servers[0].URL, "/") {
		return nil, fmt.Errorf("openapi document: want one server whose url is a path, got %+v", d.Servers)
	}
	t := &Table{base: strings.TrimSuffix(d.Servers[0].URL, "/")}
	for p, item := range d.Paths {
		if !strings.HasPrefix(p, "/") {
			return nil, fmt.Errorf("openapi document: path %q does not start with /", p)
		}
		var methods []string
		for key := range item {
			if m, ok := method(key); ok {
				methods = append(methods, m)
			}
		}
		sort.Strings(methods)
		t.templates = append(t.templates, template{pattern: t.base + p, segments: split(t.base + p), methods: methods})
	}
	return t, nil
}

// Base is the server URL the documented paths are relative to.
func (t *Table) Base() string { return t.base }

// Lookup returns the methods documented for the path (sorted, upper case),
// and false when no documented path matches it. When a concrete path and a
// template both match (/contacts/batch and /contacts/{contact}), the one
// with a literal segment earlier wins, as OpenAPI prescribes.
func (t *Table) Lookup(path string) ([]string, bool) {
	_, methods, ok := t.Match(path)
	return methods, ok
}

// Match is Lookup that also returns the documented path template that
// matched (with the base, e.g. /api/v1/contacts/{contact}): a bounded set of
// strings, fit for metric labels where the raw path is not.
func (t *Table) Match(path string) (pattern string, methods []string, ok bool) {
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	var best *template
	for i := range t.templates {
		tpl := &t.templates[i]
		if tpl.matches(segs) && (best == nil || tpl.moreSpecific(best)) {
			best = tpl
		}
	}
	if best == nil {
		return "", nil, false
	}
	return best.pattern, best.methods, true
}

func (tpl *template) matches(segs []string) bool {
	if len(segs) != len(tpl.segments) {
		return false
	}
	for i, s := range tpl.segments {
		if segs[i] == "" || (s != "" && s != segs[i]) {
			return false
		}
	}
	return true
}

// moreSpecific reports whether tpl has a literal segment where other has a
// parameter, at the first position where the two differ in kind.
func (tpl *template) moreSpecific(other *template) bool {
	for i, s := range tpl.segments {
		if (s == "") != (other.segments[i] == "") {
			return s != ""
		}
	}
	return false
}

// split turns a documented path into segments, parameters as "".
func split(p string) []string {
	segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, s := range segs {
		if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
			segs[i] = ""
		}
	}
	return segs
}

// Allows reports whether method is one of methods.
func Allows(methods []string, method string) bool {
	for _, m := range methods {
		if m == method {
			return true
		}
	}
	return false
}

// Safe reports whether a raw request path may be routed: it starts with /,
// and has no empty segment and no dot segment (plain or percent-encoded),
// so the path the gateway checks is the path the upstream serves.
func Safe(path string) bool {
	if !strings.HasPrefix(path, "/") {
		return false
	}
	if path == "/" {
		return true
	}
	for _, s := range strings.Split(path[1:], "/") {
		switch strings.ToLower(s) {
		case "", ".", "..", "%2e", "%2e%2e", ".%2e", "%2e.":
			return false
		}
	}
	return true
}
