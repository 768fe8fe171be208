package devstack

import (
	"bytes"
	"net/netip"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	aigatewaysvc "github.com/paylane/paylane/ai-gateway-svc"
	batchsvc "github.com/paylane/paylane/batch-svc"
	contactssvc "github.com/paylane/paylane/contacts-svc"
	dashboardsvc "github.com/paylane/paylane/dashboard-svc"
	"github.com/paylane/paylane/gateway"
	identitysvc "github.com/paylane/paylane/identity-svc"
	optinsvc "github.com/paylane/paylane/optin-svc"
	transactionssvc "github.com/paylane/paylane/transactions-svc"
	webhooksvc "github.com/paylane/paylane/webhook-svc"
)

// fixtureDeps are deps with every field set to a distinct value.
func fixtureDeps() deps {
	return deps{
		httpAddr: "127.0.0.1:4101", internalAddr: "127.0.0.1:4102",
		ownerDSN: "postgres://svc_owner:o@127.0.0.1:5999/svc?sslmode=disable",
		appDSN:   "postgres://svc_app:a@127.0.0.1:5999/svc?sslmode=disable",
		brokers:  []string{"127.0.0.1:9901", "127.0.0.1:9902"},
		secrets: Secrets{
			SigningKey: bytes.Repeat([]byte{1}, 32), AdminToken: "admin-token", LinkKey: bytes.Repeat([]byte{2}, 32),
			WebhookEncryptionKey: bytes.Repeat([]byte{3}, 32), SMSAuthToken: "sms-token", ServiceSecret: "service-secret-0123456789",
		},
		identityURL: "http://127.0.0.1:4001",
		urls: map[string]string{"identity": "http://127.0.0.1:4001", "contacts": "http://127.0.0.1:4002",
			"optin": "http://127.0.0.1:4003", "transactions": "http://127.0.0.1:4004", "webhook": "http://127.0.0.1:4005",
			"batch": "http://127.0.0.1:4006"},
		publicURL: "https://localhost:8999",
		caFile:    "/tmp/devstack-ca.pem",
	}
}

// setEnv sets env (KEY=value lines) for the test.
func setEnv(t *testing.T, env []string) {
	t.Helper()
	seen := map[string]bool{}
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || seen[k] {
			t.Fatalf("environment entry %q: malformed or set twice", kv)
		}
		seen[k] = true
		t.Setenv(k, v)
	}
}

// ignored are the fields set apart from the environment variables the
// devstack writes: the service registry (CONSUL_HTTP_ADDR, unset here) and
// the migration DSN, which the process mode hands to `<binary> migrate`
// instead. The listener, logger and ready callback are Run's options, not
// Config fields.
func ignored(typ any) cmp.Option {
	names := []string{"Base.MigrateDatabaseURL"}
	if _, ok := typ.(identitysvc.Config); ok {
		names = append(names, "Registrar")
	}
	return cmpopts.IgnoreFields(typ, names...)
}

// TestProcessEnvironmentIsTheInProcessConfig checks, for every service and
// the gateway, that the environment of the process mode makes the binary's
// ConfigFromEnv produce the Config the in-process mode passes to Run. Not
// parallel: it sets the process environment.
func TestProcessEnvironmentIsTheInProcessConfig(t *testing.T) {
	d := fixtureDeps()
	check := func(t *testing.T, want, got any, err error, opt cmp.Option) {
		t.Helper()
		if err != nil {
			t.Fatalf("ConfigFromEnv: %v", err)
		}
		if diff := cmp.Diff(want, got, opt, cmpopts.EquateEmpty(), cmpopts.EquateComparable(netip.Prefix{})); diff != "" {
			t.Errorf("ConfigFromEnv differs from the in-process Config (-in-process +env):\n%s", diff)
		}
	}
	t.Run("identity", func(t *testing.T) {
		setEnv(t, identityEnv(d))
		got, err := identitysvc.ConfigFromEnv()
		check(t, identityConfig(d), got, err, ignored(identitysvc.Config{}))
	})
	t.Run("contacts", func(t *testing.T) {
		setEnv(t, contactsEnv(d))
		got, err := contactssvc.ConfigFromEnv()
		check(t, contactsConfig(d), got, err, ignored(contactssvc.Config{}))
	})
	t.Run("optin", func(t *testing.T) {
		setEnv(t, optinEnv(d))
		got, err := optinsvc.ConfigFromEnv()
		check(t, optinConfig(d), got, err, ignored(optinsvc.Config{}))
	})
	t.Run("transactions", func(t *testing.T) {
		setEnv(t, transactionsEnv(d))
		got, err := transactionssvc.ConfigFromEnv()
		check(t, transactionsConfig(d), got, err, ignored(transactionssvc.Config{}))
	})
	t.Run("webhook", func(t *testing.T) {
		setEnv(t, webhookEnv(d))
		got, err := webhooksvc.ConfigFromEnv()
		check(t, webhookConfig(d), got, err, ignored(webhooksvc.Config{}))
	})
	t.Run("batch", func(t *testing.T) {
		setEnv(t, batchEnv(d))
		got, err := batchsvc.ConfigFromEnv()
		check(t, batchConfig(d), got, err, ignored(batchsvc.Config{}))
	})
	t.Run("ai-gateway", func(t *testing.T) {
		ai := d
		ai.appDSN, ai.ownerDSN = "", ""
		setEnv(t, aiGatewayEnv(ai))
		got, err := aigatewaysvc.ConfigFromEnv()
		check(t, aiGatewayConfig(ai), got, err, ignored(aigatewaysvc.Config{}))
	})
	t.Run("dashboard", func(t *testing.T) {
		setEnv(t, dashboardEnv(d))
		got, err := dashboardsvc.ConfigFromEnv()
		check(t, dashboardConfig(d), got, err, ignored(dashboardsvc.Config{}))
	})
	t.Run("gateway", func(t *testing.T) {
		routes, admin := gatewayRoutes(services(), map[string]string{"identity": "127.0.0.1:4001", "contacts": "127.0.0.1:4002",
			"optin": "127.0.0.1:4003", "transactions": "127.0.0.1:4004", "webhook": "127.0.0.1:4005",
			"batch": "127.0.0.1:4006", "ai-gateway": "127.0.0.1:4007", "dashboard": "127.0.0.1:4008"})
		gd := gatewayDeps{
			listenAddr: "127.0.0.1:8999", adminAddr: "127.0.0.1:8998", internalAddr: "127.0.0.1:8997",
			certFile: "/tmp/cert.pem", keyFile: "/tmp/key.pem", identityURL: "http://127.0.0.1:4001",
			routes: routes, adminRoutes: admin, adminToken: "admin-token", brokers: d.brokers,
			publicURL: "https://localhost:8999",
		}
		setEnv(t, gatewayEnv(gd))
		got, err := gateway.ConfigFromEnv()
		check(t, gatewayConfig(gd), got, err, cmpopts.IgnoreFields(gateway.Config{}, "Registrar"))
	})
}
