package webhook

import (
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/paylane/paylane/libs/events"
)

// Limits of the endpoint fields (spec section 8).
const (
	MaxNameLength = 120
	MaxURLLength  = 2048
)

// Input is the body of create, PUT and PATCH: the mutable fields. A nil
// field was not sent (or sent as null).
type Input struct {
	Name             *string   `json:"name"`
	URL              *string   `json:"url"`
	SubscribedEvents *[]string `json:"subscribed_events"`
	IsActive         *bool     `json:"is_active"`
}

// Mode says which fields an input must carry.
type Mode int

// Modes of Validate.
const (
	// Create and Replace (POST, PUT) need name, url and subscribed_events.
	Create Mode = iota
	Replace
	// Patch (PATCH) checks only the fields sent.
	Patch
)

// Changes are validated fields; nil means "leave as it is" (or the default
// on create).
type Changes struct {
	Name             *string
	URL              *string
	SubscribedEvents []string
	IsActive         *bool
}

// Validate checks in for mode and returns the changes it asks for, or a
// *ValidationError naming every invalid field.
func Validate(in Input, mode Mode) (Changes, error) {
	errs := map[string][]string{}
	var ch Changes
	required := mode != Patch
	if in.Name != nil || required {
		name, msg := validateName(in.Name)
		if msg != "" {
			errs["name"] = append(errs["name"], msg)
		}
		ch.Name = &name
	}
	if in.URL != nil || required {
		u, msg := validateURL(in.URL)
		if msg != "" {
			errs["url"] = append(errs["url"], msg)
		}
		ch.URL = &u
	}
	if in.SubscribedEvents != nil || required {
		patterns, msgs := validatePatterns(in.SubscribedEvents)
		if len(msgs) > 0 {
			errs["subscribed_events"] = msgs
		}
		ch.SubscribedEvents = patterns
	}
	ch.IsActive = in.IsActive
	if len(errs) > 0 {
		return Changes{}, &ValidationError{Fields: errs}
	}
	return ch, nil
}

func validateName(p *string) (string, string) {
	if p == nil || strings.TrimSpace(*p) == "" {
		return "", "The name field is required."
	}
	name := strings.TrimSpace(*p)
	if utf8.RuneCountInString(name) > MaxNameLength {
		return "", fmt.Sprintf("The name field must not be greater than %d characters.", MaxNameLength)
	}
	return name, ""
}

func validateURL(p *string) (string, string) {
	if p == nil || strings.TrimSpace(*p) == "" {
		return "", "The url field is required."
	}
	raw := strings.TrimSpace(*p)
	if utf8.RuneCountInString(raw) > MaxURLLength {
		return "", fmt.Sprintf("The url field must not be greater than %d characters.", MaxURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Hostname() == "" || strings.ContainsAny(raw, " \t\r\n") {
		return "", "The url field must be a valid URL."
	}
	if !strings.EqualFold(u.Scheme, "https") {
		return "", "The url field must use https."
	}
	if u.User != nil {
		return "", "The url field must not contain credentials."
	}
	if msg := checkHost(u); msg != "" {
		return "", msg
	}
	return raw, ""
}

// checkHost refuses, when the endpoint is written, the host and port forms
// that the dial-time address check cannot judge the way a receiver's
// software might read them: a port outside 1-65535; an IPv6 zone; and an
// IPv4 address written other than as four decimal numbers (2130706433,
// 0177.0.0.1, 0x7f.0.0.1, 127.1, a trailing dot), which URL parsers and
// libc read as an address (WHATWG: a host whose last label is a number is
// an IPv4 address) while Go would look it up as a name. Which addresses
// may be reached is decided when dialling, after DNS, where the operator's
// allow-list applies (contract section 9).
func checkHost(u *url.URL) string {
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return "The url field must have a port between 1 and 65535."
		}
	}
	host := u.Hostname()
	if strings.Contains(host, ":") { // a bracketed IPv6 literal
		a, err := netip.ParseAddr(host)
		if err != nil || a.Zone() != "" {
			return "The url field must be a valid URL."
		}
		return ""
	}
	labels := strings.Split(strings.TrimSuffix(host, "."), ".")
	if !numericLabel(labels[len(labels)-1]) {
		return ""
	}
	if a, err := netip.ParseAddr(host); err != nil || !a.Is4() || a.String() != host {
		return "The url field must write an IP address as four decimal numbers (like 203.0.113.7)."
	}
	return ""
}

// numericLabel reports whether a host label is a number to a URL parser:
// decimal digits, or 0x and hexadecimal digits.
func numericLabel(s string) bool {
	if s == "" {
		return false
	}
	if rest, ok := strings.CutPrefix(strings.ToLower(s), "0x"); ok {
		return strings.Trim(rest, "0123456789abcdef") == ""
	}
	return strings.Trim(s, "0123456789") == ""
}

// validatePatterns checks subscribed_events: a non-empty array of exact
// catalog types, "<domain>.*" for a domain of the catalog, or "*".
// Duplicates are dropped, the order kept.
func validatePatterns(p *[]string) ([]string, []string) {
	if p == nil || len(*p) == 0 {
		return nil, []string{"The subscribed events field must have at least 1 item."}
	}
	var (
		out  []string
		msgs []string
		seen = map[string]bool{}
	)
	for _, pattern := range *p {
		if !KnownPattern(pattern) {
			msgs = append(msgs, fmt.Sprintf("The subscribed event %q is not a known event type or pattern.", pattern))
			continue
		}
		if !seen[pattern] {
			seen[pattern] = true
			out = append(out, pattern)
		}
	}
	return out, msgs
}

// KnownPattern reports whether pattern is a valid subscription: "*", an
// exact public event type, or "<domain>.*" where some public type's first
// segment is <domain>.
func KnownPattern(pattern string) bool {
	if pattern == "*" || events.IsPublic(pattern) {
		return true
	}
	domain, ok := strings.CutSuffix(pattern, ".*")
	if !ok || domain == "" || strings.Contains(domain, ".") {
		return false
	}
	for _, t := range events.Catalog() {
		if events.Matches(pattern, t) {
			return true
		}
	}
	return false
}

// PatternsFor returns the subscription patterns that match eventType: the
// type itself, its "<domain>.*" and "*". An endpoint receives the event when
// it subscribes to any of them.
func PatternsFor(eventType string) []string {
	domain, _, _ := strings.Cut(eventType, ".")
	return []string{eventType, domain + ".*", "*"}
}
