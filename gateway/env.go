package gateway

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"time"

	"github.com/paylane/paylane/libs/envconf"
	"github.com/paylane/paylane/libs/obs"
)

// ConfigFromEnv reads the configuration from the environment (names in
// README.md) and validates it.
func ConfigFromEnv() (Config, error) {
	e := envReader{}
	cfg := Config{
		ListenAddr:        envconf.Or("LISTEN_ADDR", DefaultListenAddr),
		AdminAddr:         envconf.Or("ADMIN_ADDR", DefaultAdminAddr),
		InternalAddr:      envconf.Or("INTERNAL_ADDR", DefaultInternalAddr),
		TLSCertFile:       os.Getenv("TLS_CERT_FILE"),
		TLSKeyFile:        os.Getenv("TLS_KEY_FILE"),
		IdentityURL:       os.Getenv("IDENTITY_URL"),
		Routes:            e.routes("ROUTES"),
		AdminRoutes:       e.routes("ADMIN_ROUTES"),
		AdminToken:        os.Getenv("ADMIN_TOKEN"),
		RedisURL:          os.Getenv("REDIS_URL"),
		KafkaBrokers:      envconf.List(os.Getenv("KAFKA_BROKERS")),
		TokenPerMinute:    e.integer("RATE_LIMIT_TOKEN_PER_MINUTE", DefaultTokenPerMinute),
		IPPerMinute:       e.integer("RATE_LIMIT_IP_PER_MINUTE", DefaultIPPerMinute),
		WebhookPerMinute:  e.integer("RATE_LIMIT_WEBHOOK_PER_MINUTE", DefaultWebhookPerMinute),
		PageIPPerMinute:   e.integer("RATE_LIMIT_PAGE_IP_PER_MINUTE", DefaultPageIPPerMinute),
		PageLinkPerMinute: e.integer("RATE_LIMIT_PAGE_LINK_PER_MINUTE", DefaultPageLinkPerMinute),
		TokenCacheTTL:     e.duration("TOKEN_CACHE_TTL", DefaultTokenCacheTTL),
		ReadTimeout:       e.duration("READ_TIMEOUT", DefaultReadTimeout),
		PublicBaseURL:     os.Getenv("PUBLIC_BASE_URL"),
	}
	level := e.level("LOG_LEVEL")
	reg, err := RegistrarFromEnv(os.LookupEnv)
	if err != nil {
		e.errs = append(e.errs, err)
	}
	cfg.Registrar = reg
	if err := errors.Join(append(e.errs, cfg.Validate())...); err != nil {
		return Config{}, fmt.Errorf("gateway configuration: %w", err)
	}
	cfg.Logger = obs.NewLogger("gateway", os.Stderr, level)
	return cfg, nil
}

// envReader reads typed variables and collects the parse errors.
type envReader struct{ errs []error }

func (e *envReader) integer(name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		e.errs = append(e.errs, fmt.Errorf("%s=%q: want a positive integer", name, v))
	}
	return n
}

func (e *envReader) duration(name string, def time.Duration) time.Duration {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		e.errs = append(e.errs, fmt.Errorf("%s=%q: want a positive duration such as 5s", name, v))
	}
	return d
}

func (e *envReader) routes(name string) []Route {
	r, err := ParseRoutes(os.Getenv(name))
	if err != nil {
		e.errs = append(e.errs, fmt.Errorf("%s: %w", name, err))
	}
	return r
}

func (e *envReader) level(name string) slog.Level {
	var l slog.Level
	v := os.Getenv(name)
	if v == "" {
		return slog.LevelInfo
	}
	if err := l.UnmarshalText([]byte(v)); err != nil {
		e.errs = append(e.errs, fmt.Errorf("%s=%q: want debug, info, warn or error", name, v))
	}
	return l
}
