package envconf_test

import (
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/envconf"
)

// The tests that set variables use t.Setenv, so they cannot run in parallel.

const key = "ENVCONF_TEST_VAR"

func TestOr(t *testing.T) {
	tests := []struct {
		name, value, want string
	}{
		{"unset", "", "default"},
		{"set", ":8081", ":8081"},
		{"spaces are kept", " x ", " x "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(key, tt.value)
			if got := envconf.Or(key, "default"); got != tt.want {
				t.Errorf("Or(%q) = %q, want %q", tt.value, got, tt.want)
			}
		})
	}
}

func TestList(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"only blanks", " , ,, ", nil},
		{"one", "k1:9092", []string{"k1:9092"}},
		{"trimmed", "k1:9092, k2:9092", []string{"k1:9092", "k2:9092"}},
		{"trailing comma", "k1:9092, k2:9092,", []string{"k1:9092", "k2:9092"}},
		{"inner blanks dropped", "a,, b ,\t,c", []string{"a", "b", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := envconf.List(tt.in)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("List(%q) (-want +got):\n%s", tt.in, diff)
			}
			if tt.want == nil && got != nil {
				t.Errorf("List(%q) = %#v, want nil", tt.in, got)
			}
		})
	}
}

func TestInt(t *testing.T) {
	tests := []struct {
		name, value string
		want        int
		wantErr     string
	}{
		{"unset keeps the default", "", 7, ""},
		{"set", "3", 3, ""},
		{"negative", "-2", -2, ""},
		{"not a number", "many", 7, `ENVCONF_TEST_VAR: strconv.Atoi: parsing "many": invalid syntax`},
		{"spaces are not trimmed", " 3", 7, `ENVCONF_TEST_VAR: strconv.Atoi: parsing " 3": invalid syntax`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(key, tt.value)
			got := 7
			err := envconf.Int(key, &got)
			checkErr(t, err, tt.wantErr)
			if tt.wantErr != "" && !errors.Is(err, strconv.ErrSyntax) {
				t.Errorf("Int: error %v does not wrap strconv.ErrSyntax", err)
			}
			if got != tt.want {
				t.Errorf("Int(%q) set %d, want %d", tt.value, got, tt.want)
			}
		})
	}
}

func TestDuration(t *testing.T) {
	tests := []struct {
		name, value string
		want        time.Duration
		wantErr     string
	}{
		{"unset keeps the default", "", time.Minute, ""},
		{"set", "30s", 30 * time.Second, ""},
		{"compound", "1h30m", 90 * time.Minute, ""},
		{"no unit", "5", time.Minute, `ENVCONF_TEST_VAR: time: missing unit in duration "5"`},
		{"not a duration", "soon", time.Minute, `ENVCONF_TEST_VAR: time: invalid duration "soon"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(key, tt.value)
			got := time.Minute
			checkErr(t, envconf.Duration(key, &got), tt.wantErr)
			if got != tt.want {
				t.Errorf("Duration(%q) set %s, want %s", tt.value, got, tt.want)
			}
		})
	}
}

func TestIsHTTPURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want bool
	}{
		{"http://identity-svc:8080", true},
		{"https://api.paylane.example", true},
		{"https://api.paylane.example/base/", true},
		{"", false},
		{"identity-svc:8080", false},
		{"ftp://files.example", false},
		{"http://", false},
		{"/relative/path", false},
		{"http://bad host", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			if got := envconf.IsHTTPURL(tt.in); got != tt.want {
				t.Errorf("IsHTTPURL(%q) = %t, want %t", tt.in, got, tt.want)
			}
		})
	}
}

func TestAppendErr(t *testing.T) {
	t.Parallel()
	first := errors.New("first")
	cause := errors.New("bad value")
	tests := []struct {
		name string
		err  error
		want []string
	}{
		{"nil error leaves the list", nil, []string{"first"}},
		{"error is prefixed", cause, []string{"first", "DB_MAX_CONNS: bad value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			errs := envconf.AppendErr([]error{first}, "DB_MAX_CONNS", tt.err)
			var got []string
			for _, err := range errs {
				got = append(got, err.Error())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("AppendErr (-want +got):\n%s", diff)
			}
			if tt.err != nil && !errors.Is(errs[len(errs)-1], cause) {
				t.Errorf("AppendErr: %v does not wrap its cause", errs[len(errs)-1])
			}
		})
	}
	if got := envconf.AppendErr(nil, "X", nil); got != nil {
		t.Errorf("AppendErr(nil, X, nil) = %v, want nil", got)
	}
}

func checkErr(t *testing.T, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("unexpected error: %v", err)
	case want != "" && err == nil:
		t.Errorf("no error, want %q", want)
	case want != "" && err.Error() != want:
		t.Errorf("error = %q, want %q", err.Error(), want)
	}
}

func TestLogLevel(t *testing.T) {
	for v, want := range map[string]slog.Level{"": slog.LevelInfo, "debug": slog.LevelDebug, "WARN": slog.LevelWarn} {
		t.Setenv("LOG_LEVEL", v)
		if got, err := envconf.LogLevel(); err != nil || got != want {
			t.Errorf("LOG_LEVEL=%q: %v, %v; want %v", v, got, err, want)
		}
	}
	t.Setenv("LOG_LEVEL", "loud")
	if _, err := envconf.LogLevel(); err == nil || !strings.Contains(err.Error(), "LOG_LEVEL") {
		t.Errorf("LOG_LEVEL=loud: err = %v, want one naming LOG_LEVEL", err)
	}
}
