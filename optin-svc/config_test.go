package optinsvc_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/envconf"
	optin "github.com/paylane/paylane/optin-svc"
)

func setenv(t *testing.T, env map[string]string) {
	t.Helper()
	for _, k := range []string{"HTTP_ADDR", "INTERNAL_ADDR", "DATABASE_URL", "MIGRATE_DATABASE_URL", "DB_MAX_CONNS",
		"KAFKA_BROKERS", "IDENTITY_URL", "SERVICE_SECRET", "CONTACTS_URL", "TRANSACTIONS_URL", "ADMIN_TOKEN", "PUBLIC_BASE_URL",
		"DEFAULT_REGION", "SMS_PROVIDER", "TWILIO_ACCOUNT_SID", "TWILIO_AUTH_TOKEN", "TWILIO_BASE_URL",
		"SMS_DEFAULT_FROM", "SMS_DEFAULT_TENANT", "SMS_AUTH_TOKEN", "SMS_SEND_MAX_ATTEMPTS", "SMS_SEND_RETRY_BASE",
		"SMS_SEND_POLL_INTERVAL", "LOG_LEVEL"} {
		t.Setenv(k, env[k])
	}
}

func TestConfigFromEnv(t *testing.T) {
	setenv(t, map[string]string{
		"DATABASE_URL": "postgres://app@db/optin", "KAFKA_BROKERS": "k1:9092, k2:9092",
		"IDENTITY_URL": "http://identity-svc:8080", "SERVICE_SECRET": "s", "CONTACTS_URL": "http://contacts-svc:8080",
		"TRANSACTIONS_URL": "http://transactions-svc:8080", "ADMIN_TOKEN": "a", "PUBLIC_BASE_URL": "https://api.paylane.example", "SMS_PROVIDER": "twilio",
		"TWILIO_ACCOUNT_SID": "AC1", "TWILIO_AUTH_TOKEN": "tok", "SMS_DEFAULT_FROM": "+15005550006",
		"SMS_AUTH_TOKEN": "tok", "SMS_SEND_RETRY_BASE": "5s", "DB_MAX_CONNS": "7",
	})
	cfg, err := optin.ConfigFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	want := optin.Config{
		Base: envconf.Base{HTTPAddr: ":8080", InternalAddr: ":9090", DatabaseURL: "postgres://app@db/optin", DBMaxConns: 7,
			KafkaBrokers: []string{"k1:9092", "k2:9092"}, IdentityURL: "http://identity-svc:8080"},
		ServiceSecret: "s",
		ContactsURL:   "http://contacts-svc:8080", TransactionsURL: "http://transactions-svc:8080", AdminToken: "a", PublicBaseURL: "https://api.paylane.example",
		DefaultRegion: "US", SMSProvider: "twilio", TwilioAccountSID: "AC1", TwilioAuthToken: "tok",
		TwilioBaseURL: "https://api.twilio.com", SMSDefaultFrom: "+15005550006", SMSAuthToken: "tok",
		SendMaxAttempts: 6, SendRetryBase: 5 * time.Second, SendPollInterval: time.Second,
	}
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	if err := cfg.Validate(); err != nil {
		t.Errorf("Validate() = %v", err)
	}
}

// TestSMSAuthTokenDefaultsToTheTwilioAuthToken: Twilio signs callbacks
// with the account's auth token, so it is the default key.
func TestSMSAuthTokenDefaultsToTheTwilioAuthToken(t *testing.T) {
	setenv(t, map[string]string{"SMS_PROVIDER": "twilio", "TWILIO_ACCOUNT_SID": "AC1", "TWILIO_AUTH_TOKEN": "tok"})
	cfg, err := optin.ConfigFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.SMSAuthToken != "tok" {
		t.Errorf("SMSAuthToken = %q, want TWILIO_AUTH_TOKEN's value", cfg.SMSAuthToken)
	}
}

func TestConfigFromEnvRefusesUnparsableValues(t *testing.T) {
	setenv(t, map[string]string{"DB_MAX_CONNS": "many", "SMS_SEND_RETRY_BASE": "soon", "LOG_LEVEL": "loud"})
	_, err := optin.ConfigFromEnv()
	for _, name := range []string{"DB_MAX_CONNS", "SMS_SEND_RETRY_BASE", "LOG_LEVEL"} {
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("error %v does not name %s", err, name)
		}
	}
}

func TestValidateNamesEveryProblem(t *testing.T) {
	t.Parallel()
	cfg := optin.Config{SMSProvider: "twilio", DefaultRegion: "usa", SMSDefaultFrom: "5550006", PublicBaseURL: "api.example"}
	err := cfg.Validate()
	for _, name := range []string{"HTTP_ADDR", "DATABASE_URL", "IDENTITY_URL", "CONTACTS_URL", "TRANSACTIONS_URL",
		"SERVICE_SECRET", "ADMIN_TOKEN", "SMS_AUTH_TOKEN", "PUBLIC_BASE_URL", "DEFAULT_REGION", "SMS_DEFAULT_FROM",
		"TWILIO_ACCOUNT_SID", "TWILIO_AUTH_TOKEN", "SMS_SEND_MAX_ATTEMPTS"} {
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("Validate() = %v, does not name %s", err, name)
		}
	}
	cfg = optin.Config{SMSProvider: "twilio", TwilioAuthToken: "account-token", SMSAuthToken: "other"}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "SMS_AUTH_TOKEN must equal TWILIO_AUTH_TOKEN") {
		t.Errorf("Validate() = %v, want the mismatched SMS_AUTH_TOKEN named", err)
	}
	cfg.SMSProvider = "carrier-pigeon"
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "SMS_PROVIDER") {
		t.Errorf("Validate() = %v, want SMS_PROVIDER named", err)
	}
}
