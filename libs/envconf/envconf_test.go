package envconf_test

import (
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/envconf"
)

// The tests that set variables use t.Setenv, so they cannot run in parallel.

const key = "ENVCONF_TEST_VAR"

func TestList(t *testing.T) {
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

			var cfg struct {
				L []string `env:"ENVCONF_LIST_VAR"`
			}
			t.Setenv("ENVCONF_LIST_VAR", tt.in)
			if err := envconf.Parse(&cfg); err != nil {
				t.Fatal(err)
			}
			got := cfg.L
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse of %q (-want +got):\n%s", tt.in, diff)
			}
			if tt.want == nil && got != nil {
				t.Errorf("List(%q) = %#v, want nil", tt.in, got)
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

// config is a service's Config as the services write them.
type config struct {
	envconf.Base
	Key     envconf.Bytes `env:"ENVCONF_KEY"`
	Timeout time.Duration `env:"ENVCONF_TIMEOUT" envDefault:"3s"`
	Peer    string        `env:"ENVCONF_PEER"`
}

// TestParse reads the shared and a service's own variables with their
// defaults: an unset or empty variable takes the default, or leaves the
// value the Config had (a peer's Kubernetes URL).
func TestParse(t *testing.T) {
	for _, k := range []string{"HTTP_ADDR", "INTERNAL_ADDR", "DATABASE_URL", "MIGRATE_DATABASE_URL", "DB_MAX_CONNS",
		"KAFKA_BROKERS", "IDENTITY_URL", "LOG_LEVEL", "ENVCONF_KEY", "ENVCONF_TIMEOUT", "ENVCONF_PEER"} {
		t.Setenv(k, "")
	}
	t.Setenv("DATABASE_URL", "postgres://app@db/x")
	t.Setenv("KAFKA_BROKERS", " k1:9092, k2:9092,")
	t.Setenv("LOG_LEVEL", "debug")
	t.Setenv("ENVCONF_KEY", " AQID ")
	cfg := config{Peer: "http://peer:8080"}
	if err := envconf.Parse(&cfg); err != nil {
		t.Fatal(err)
	}
	want := config{
		Base: envconf.Base{HTTPAddr: ":8080", InternalAddr: ":9090", DatabaseURL: "postgres://app@db/x", DBMaxConns: 10,
			KafkaBrokers: []string{"k1:9092", "k2:9092"}, LogLevel: slog.LevelDebug},
		Key: []byte{1, 2, 3}, Timeout: 3 * time.Second, Peer: "http://peer:8080",
	}
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Errorf("Parse (-want +got):\n%s", diff)
	}
}

// TestParseNamesEveryBadVariable: each value that does not parse is
// reported at once, named by its variable, not by the Go field.
func TestParseNamesEveryBadVariable(t *testing.T) {
	t.Setenv("DB_MAX_CONNS", "many")
	t.Setenv("LOG_LEVEL", "loud")
	t.Setenv("ENVCONF_KEY", "%%%")
	t.Setenv("ENVCONF_TIMEOUT", "soon")
	var cfg config
	err := envconf.Parse(&cfg)
	for _, name := range []string{"DB_MAX_CONNS:", "LOG_LEVEL:", "ENVCONF_KEY:", "ENVCONF_TIMEOUT:"} {
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("Parse: %v, want it to name %s", err, name)
		}
	}
	if err != nil && strings.Contains(err.Error(), "DBMaxConns") {
		t.Errorf("Parse: %v names the Go field", err)
	}
}

// TestParseFromAnEmptyEnvironment gives every default whatever the
// process's environment holds.
func TestParseFromAnEmptyEnvironment(t *testing.T) {
	t.Setenv("HTTP_ADDR", ":1")
	var cfg config
	if err := envconf.ParseFrom(&cfg, nil); err != nil {
		t.Fatal(err)
	}
	if cfg.HTTPAddr != ":8080" || cfg.DBMaxConns != envconf.DefaultDBMaxConns || cfg.Timeout != 3*time.Second {
		t.Errorf("ParseFrom(empty) = %+v, want the defaults", cfg)
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	good := envconf.Base{HTTPAddr: ":8080", InternalAddr: ":9090", DatabaseURL: "postgres://x", DBMaxConns: 10,
		IdentityURL: "http://identity-svc:8080"}
	tests := []struct {
		name   string
		change func(*envconf.Base)
		needs  envconf.Needs
		want   string
	}{
		{"valid", func(*envconf.Base) {}, envconf.Database | envconf.Identity, ""},
		{"no HTTP address", func(b *envconf.Base) { b.HTTPAddr = "" }, 0, "HTTP_ADDR"},
		{"no internal address", func(b *envconf.Base) { b.InternalAddr = "" }, 0, "INTERNAL_ADDR"},
		{"no database", func(b *envconf.Base) { b.DatabaseURL = "" }, envconf.Database, "DATABASE_URL"},
		{"no database needed", func(b *envconf.Base) { b.DatabaseURL, b.DBMaxConns = "", 0 }, envconf.Identity, ""},
		{"pool of one", func(b *envconf.Base) { b.DBMaxConns = 1 }, envconf.Database, "DB_MAX_CONNS"},
		{"pool too large", func(b *envconf.Base) { b.DBMaxConns = 1001 }, envconf.Database, "DB_MAX_CONNS"},
		{"identity not a URL", func(b *envconf.Base) { b.IdentityURL = "identity-svc" }, envconf.Identity, "IDENTITY_URL"},
		{"identity not needed", func(b *envconf.Base) { b.IdentityURL = "" }, envconf.Database, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := good
			tt.change(&b)
			err := errors.Join(b.Check(tt.needs)...)
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("Check() = %v, want an error naming %q", err, tt.want)
			}
		})
	}
}
