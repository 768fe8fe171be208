package envconf

import (
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"

	"github.com/caarlos0/env/v11"
)

// Base is the configuration every service shares: its listeners, its
// database, the broker, identity-svc and the log level. Each service's
// Config embeds it, so the variables below are read, defaulted and checked
// the same way everywhere.
type Base struct {
	// HTTPAddr is the service's HTTP listener (HTTP_ADDR, ":8080").
	HTTPAddr string `env:"HTTP_ADDR" envDefault:":8080"`
	// InternalAddr serves /healthz, /readyz, /metrics and /debug/pprof
	// (INTERNAL_ADDR, ":9090").
	InternalAddr string `env:"INTERNAL_ADDR" envDefault:":9090"`
	// DatabaseURL is the app role's DSN (DATABASE_URL).
	DatabaseURL string `env:"DATABASE_URL"`
	// MigrateDatabaseURL is the owner role's DSN; when set, the service
	// migrates at start (MIGRATE_DATABASE_URL).
	MigrateDatabaseURL string `env:"MIGRATE_DATABASE_URL"`
	// DBMaxConns sizes the app pool (DB_MAX_CONNS, 10; MinDBMaxConns to
	// MaxDBMaxConns).
	DBMaxConns int32 `env:"DB_MAX_CONNS" envDefault:"10"`
	// KafkaBrokers is the broker list (KAFKA_BROKERS, comma-separated);
	// empty runs no relay and no consumer.
	KafkaBrokers []string `env:"KAFKA_BROKERS"`
	// IdentityURL is identity-svc's base URL: the keys of internal tokens
	// (IDENTITY_URL).
	IdentityURL string `env:"IDENTITY_URL"`
	// LogLevel is debug, info, warn or error (LOG_LEVEL, info).
	LogLevel slog.Level `env:"LOG_LEVEL" envDefault:"info"`
}

// The one rule for DB_MAX_CONNS: a service holds a connection for a request
// while a worker (relay, consumer, scheduler) may need another, so a pool of
// one can stall it; more than MaxDBMaxConns is a typo, not a plan.
const (
	DefaultDBMaxConns = 10
	MinDBMaxConns     = 2
	MaxDBMaxConns     = 1000
)

// Needs says which parts of Base a service requires.
type Needs uint8

const (
	// Database: DATABASE_URL and a valid DB_MAX_CONNS.
	Database Needs = 1 << iota
	// Identity: IDENTITY_URL as an http(s) base URL.
	Identity
)

// Common returns the shared part of a configuration (every service's
// Config has it through the embedded Base).
func (b Base) Common() Base { return b }

// Check returns every problem of the shared settings a service with needs
// has, for the service's Validate to join with its own.
func (b Base) Check(needs Needs) []error {
	var errs []error
	if b.HTTPAddr == "" {
		errs = append(errs, errors.New("HTTP_ADDR is required"))
	}
	if b.InternalAddr == "" {
		errs = append(errs, errors.New("INTERNAL_ADDR is required"))
	}
	if needs&Database != 0 {
		if b.DatabaseURL == "" {
			errs = append(errs, errors.New("DATABASE_URL is required"))
		}
		if b.DBMaxConns < MinDBMaxConns || b.DBMaxConns > MaxDBMaxConns {
			errs = append(errs, fmt.Errorf("DB_MAX_CONNS must be between %d and %d", MinDBMaxConns, MaxDBMaxConns))
		}
	}
	if needs&Identity != 0 && !IsHTTPURL(b.IdentityURL) {
		errs = append(errs, errors.New("IDENTITY_URL must be the http(s) base URL of identity-svc"))
	}
	return errs
}

// Bytes is a base64 (standard encoding) value such as a key; spaces around
// it are ignored.
type Bytes []byte

// UnmarshalText implements encoding.TextUnmarshaler.
func (k *Bytes) UnmarshalText(b []byte) error {
	v, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(b)))
	if err != nil {
		return fmt.Errorf("not base64: %w", err)
	}
	*k = v
	return nil
}

// Parse fills cfg, a pointer to a service's Config, from the environment by
// its `env` and `envDefault` tags (github.com/caarlos0/env). An unset or
// empty variable takes its default, or leaves the field as it was. A
// []string is a comma-separated list such as KAFKA_BROKERS: spaces around
// items are trimmed and empty items dropped, so "a, b," is [a b]. Every
// value that does not parse is reported at once, each named by its variable
// ("DB_MAX_CONNS: ..."); Validate checks the rest.
func Parse(cfg any) error { return parse(cfg, env.Options{}) }

// ParseFrom is Parse with environ (variable to value) as the whole
// environment: an empty one gives every default.
func ParseFrom(cfg any, environ map[string]string) error {
	if environ == nil {
		environ = map[string]string{}
	}
	return parse(cfg, env.Options{Environment: environ})
}

func parse(cfg any, opts env.Options) error {
	opts.FuncMap = map[reflect.Type]env.ParserFunc{
		reflect.TypeFor[[]string](): func(v string) (any, error) { return splitList(v), nil },
	}
	err := env.ParseWithOptions(cfg, opts)
	if err == nil {
		return nil
	}
	var agg env.AggregateError
	if !errors.As(err, &agg) {
		return err
	}
	keys := envKeys(reflect.TypeOf(cfg).Elem())
	errs := make([]error, 0, len(agg.Errors))
	for _, e := range agg.Errors {
		var pe env.ParseError
		if errors.As(e, &pe) && keys[pe.Name] != "" {
			e = fmt.Errorf("%s: %w", keys[pe.Name], pe.Err)
		}
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}

// envKeys maps the field names of t (embedded structs included) to their
// variables.
func envKeys(t reflect.Type) map[string]string {
	keys := map[string]string{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Type.Kind() == reflect.Struct && f.Tag.Get("env") == "" {
			for k, v := range envKeys(f.Type) {
				keys[k] = v
			}
			continue
		}
		if name, _, _ := strings.Cut(f.Tag.Get("env"), ","); name != "" && name != "-" {
			keys[f.Name] = name
		}
	}
	return keys
}
