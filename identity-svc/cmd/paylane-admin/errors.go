package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strings"

	"github.com/paylane/paylane/identity-svc/client"
)

// reportError writes err for a person: the API's error.code, message, the
// fields it names and the request id to quote; an unreachable admin plane
// with a hint; a wrong command line with the usage.
func reportError(stderr io.Writer, err error) {
	var apiErr *client.Error
	var urlErr *url.Error
	switch {
	case errors.As(err, &apiErr):
		if apiErr.Code == "" {
			fmt.Fprintf(stderr, "paylane-admin: the admin API answered HTTP %d without an error body\n", apiErr.Status)
		} else {
			fmt.Fprintf(stderr, "paylane-admin: %d %s: %s\n", apiErr.Status, apiErr.Code, apiErr.Message)
		}
		writeDetails(stderr, apiErr.Details)
		if apiErr.RequestID != "" {
			fmt.Fprintf(stderr, "request id: %s\n", apiErr.RequestID)
		}
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "paylane-admin: %s\n\n%s", strings.TrimPrefix(err.Error(), errUsage.Error()+": "), usage)
	case errors.As(err, &urlErr):
		fmt.Fprintf(stderr, "paylane-admin: cannot reach the admin API at %s: %v\n", redactURL(urlErr.URL), urlErr.Err)
		fmt.Fprintln(stderr, "is the stack running (make run), and are --admin-url / PAYLANE_ADMIN_URL right?")
	default:
		fmt.Fprintf(stderr, "paylane-admin: %v\n", err)
	}
}

// writeDetails lists the fields of a validation error, one a line, sorted;
// anything else as it came.
func writeDetails(w io.Writer, raw json.RawMessage) {
	if len(raw) == 0 || string(raw) == "null" {
		return
	}
	var fields map[string][]string
	if err := json.Unmarshal(raw, &fields); err != nil || len(fields) == 0 {
		fmt.Fprintf(w, "details: %s\n", raw)
		return
	}
	names := make([]string, 0, len(fields))
	for k := range fields {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Fprintf(w, "  %s: %s\n", k, strings.Join(fields[k], " "))
	}
}

// redactURL drops any user information from a URL before printing it.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "the configured URL"
	}
	u.User = nil
	u.RawQuery = ""
	return u.String()
}
