package batchsvc

import (
	"strings"
	"testing"
	"time"

	"github.com/paylane/paylane/libs/envconf"
)

func TestConfigFromEnv(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://batch_app@db/batch")
	t.Setenv("SERVICE_SECRET", "s3cret-s3cret-s3cret")
	t.Setenv("BATCH_WORKERS", "4")
	t.Setenv("BATCH_LEASE", "45s")
	t.Setenv("BATCH_RETRY_FOR", "15m")
	t.Setenv("CONTACTS_URL", "")
	t.Setenv("IDENTITY_URL", "http://identity.local:8080")
	cfg, err := ConfigFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Workers != 4 || cfg.Lease != 45*time.Second || cfg.RetryFor != 15*time.Minute || cfg.ContactsURL != "http://contacts-svc:8080" ||
		cfg.TransactionsURL != "http://transactions-svc:8080" || cfg.IdentityURL != "http://identity.local:8080" ||
		cfg.SubmissionsPerMinute != DefaultSubmissionsPerMinute || cfg.InFlight != DefaultInFlight {
		t.Errorf("config = %+v", cfg)
	}
	if err := cfg.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
	t.Setenv("BATCH_POLL_INTERVAL", "soon")
	if _, err := ConfigFromEnv(); err == nil || !strings.Contains(err.Error(), "BATCH_POLL_INTERVAL") {
		t.Errorf("bad duration: err = %v", err)
	}
	t.Setenv("BATCH_POLL_INTERVAL", "1s")
	t.Setenv("BATCH_RETRY_FOR", "200h")
	if cfg, err := ConfigFromEnv(); err != nil {
		t.Fatal(err)
	} else if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "BATCH_RETRY_FOR") {
		t.Errorf("BATCH_RETRY_FOR past the row records' 7 days: Validate() = %v", err)
	}
}

func TestValidateNamesEveryProblem(t *testing.T) {
	t.Parallel()
	err := Config{Base: envconf.Base{HTTPAddr: ":8080", InternalAddr: ":9090", DBMaxConns: 1, IdentityURL: "x"}, ContactsURL: "http://c",
		RetryFor: -time.Second}.Validate()
	for _, want := range []string{"DATABASE_URL", "DB_MAX_CONNS", "IDENTITY_URL", "SERVICE_SECRET", "BATCH_WORKERS", "BATCH_LEASE",
		"BATCH_POLL_INTERVAL", "BATCH_RETRY_BASE", "BATCH_RETRY_FOR", "BATCH_SUBMISSIONS_PER_MINUTE", "BATCHES_IN_FLIGHT"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want it to name %s", err, want)
		}
	}
}
