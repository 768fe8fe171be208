// Package apitime renders timestamps the way every Paylane response and
// event shows them: RFC 3339 in UTC with milliseconds, e.g.
// "2026-11-22T01:21:17.123Z" (contract section 2).
package apitime

import "time"

// Layout is the API's timestamp layout.
const Layout = "2006-01-02T15:04:05.000Z"

// Format renders t in UTC with milliseconds.
func Format(t time.Time) string { return t.UTC().Format(Layout) }

// FormatPtr renders an optional timestamp; nil stays nil (JSON null).
func FormatPtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := Format(*t)
	return &s
}
