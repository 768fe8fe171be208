// Package envconf reads a service's configuration from the environment:
// strings with defaults, comma lists, integers and durations, and the checks
// and error collection every service's ConfigFromEnv and Validate share.
// It holds no package-level state; every function reads os.Getenv afresh.
package envconf

import (
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// Or returns the value of the environment variable key, or def when it is
// unset or empty.
func Or(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// List splits a comma-separated list such as KAFKA_BROKERS, trimming spaces
// around each item and dropping empty ones. It returns nil when no item is
// left, so an unset variable reads as no list at all.
func List(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if p := strings.TrimSpace(part); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Int sets *dst to the integer in the environment variable key. An unset
// or empty variable leaves *dst alone and returns nil; a value that is not
// an integer leaves *dst alone and returns an error naming key
// ("KEY: strconv.Atoi: ...").
func Int(key string, dst *int) error {
	v := os.Getenv(key)
	if v == "" {
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	*dst = n
	return nil
}

// Duration sets *dst to the duration (time.ParseDuration's syntax, such as
// 30s) in the environment variable key. An unset or empty variable leaves
// *dst alone and returns nil; a value that does not parse leaves *dst alone
// and returns an error naming key ("KEY: time: invalid duration ...").
func Duration(key string, dst *time.Duration) error {
	v := os.Getenv(key)
	if v == "" {
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	*dst = d
	return nil
}

// IsHTTPURL reports whether s is an absolute http or https URL with a host,
// as the base URL of a peer service or a public origin must be.
func IsHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// AppendErr appends err to errs, prefixed with what ("what: err"), when err
// is not nil; otherwise it returns errs unchanged. ConfigFromEnv functions
// collect every parse error this way and report them together.
func AppendErr(errs []error, what string, err error) []error {
	if err != nil {
		return append(errs, fmt.Errorf("%s: %w", what, err))
	}
	return errs
}

// LogLevel reads LOG_LEVEL (debug, info, warn or error, as slog names them);
// unset means info. An unknown level is an error naming LOG_LEVEL.
func LogLevel() (slog.Level, error) {
	level := slog.LevelInfo
	if v := os.Getenv("LOG_LEVEL"); v != "" {
		if err := level.UnmarshalText([]byte(v)); err != nil {
			return slog.LevelInfo, fmt.Errorf("LOG_LEVEL: %w", err)
		}
	}
	return level, nil
}
