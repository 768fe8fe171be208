package gateway

import (
	"errors"
	"fmt"
	"os"

	"github.com/paylane/paylane/libs/envconf"
	"github.com/paylane/paylane/libs/svcrun"
)

// ConfigFromEnv reads the configuration from the environment (names in
// README.md) and validates it. The limits, TOKEN_CACHE_TTL and
// READ_TIMEOUT must be positive when set.
func ConfigFromEnv() (Config, error) {
	var cfg Config
	errs := []error{envconf.Parse(&cfg)}
	for name, v := range map[string]int{"RATE_LIMIT_TOKEN_PER_MINUTE": cfg.TokenPerMinute,
		"RATE_LIMIT_IP_PER_MINUTE": cfg.IPPerMinute, "RATE_LIMIT_WEBHOOK_PER_MINUTE": cfg.WebhookPerMinute,
		"RATE_LIMIT_PAGE_IP_PER_MINUTE": cfg.PageIPPerMinute, "RATE_LIMIT_PAGE_LINK_PER_MINUTE": cfg.PageLinkPerMinute} {
		if v <= 0 {
			errs = append(errs, fmt.Errorf("%s=%d: want a positive integer", name, v))
		}
	}
	if cfg.TokenCacheTTL <= 0 || cfg.ReadTimeout <= 0 {
		errs = append(errs, errors.New("TOKEN_CACHE_TTL and READ_TIMEOUT must be positive durations such as 5s"))
	}
	reg, err := svcrun.RegistrarFromEnv(os.LookupEnv)
	cfg.Registrar = reg
	errs = append(errs, err, cfg.Validate())
	if err := errors.Join(errs...); err != nil {
		return Config{}, fmt.Errorf("gateway configuration: %w", err)
	}
	return cfg, nil
}
