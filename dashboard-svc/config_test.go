package dashboardsvc

import (
	"strings"
	"testing"

	"github.com/paylane/paylane/libs/envconf"
)

func TestValidate(t *testing.T) {
	t.Parallel()
	good := Config{Base: envconf.Base{HTTPAddr: ":8080", InternalAddr: ":9090", DatabaseURL: "postgres://x", DBMaxConns: 2,
		IdentityURL: "http://identity-svc:8080"}, TransactionsURL: "http://transactions-svc:8080",
		WebhookURL: "http://webhook-svc:8080", ContactsURL: "http://contacts-svc:8080", OptInURL: "http://optin-svc:8080",
		BatchURL: "http://batch-svc:8080", ServiceSecret: "0123456789abcdef"}
	if err := good.Validate(); err != nil {
		t.Fatalf("Validate(good) = %v", err)
	}
	tests := []struct {
		name   string
		change func(*Config)
		want   string
	}{
		{"no database", func(c *Config) { c.DatabaseURL = "" }, "DATABASE_URL"},
		{"short secret", func(c *Config) { c.ServiceSecret = "short" }, "SERVICE_SECRET"},
		{"bad identity url", func(c *Config) { c.IdentityURL = "identity-svc" }, "IDENTITY_URL"},
		{"bad transactions url", func(c *Config) { c.TransactionsURL = "" }, "TRANSACTIONS_URL"},
		{"bad contacts url", func(c *Config) { c.ContactsURL = "contacts-svc" }, "CONTACTS_URL"},
		{"bad opt-in url", func(c *Config) { c.OptInURL = "" }, "OPTIN_URL"},
		{"bad batch url", func(c *Config) { c.BatchURL = "ftp://batch" }, "BATCH_URL"},
		{"no pool", func(c *Config) { c.DBMaxConns = 0 }, "DB_MAX_CONNS"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := good
			tc.change(&c)
			if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate() = %v, want an error naming %s", err, tc.want)
			}
		})
	}
}
