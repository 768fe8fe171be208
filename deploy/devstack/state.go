package devstack

import (
	"encoding/json"
	"os"
)

// File is the content of Root/devstack.json (contract.md section 12): what a
// developer, a script or paylane-admin needs to talk to the running stack.
type File struct {
	GatewayURL   string `json:"gateway_url"`
	CAFile       string `json:"ca_file"`
	AdminURL     string `json:"admin_url"`
	AdminToken   string `json:"admin_token"`
	SMSAuthToken string `json:"sms_auth_token"`
	DemoTenantID string `json:"demo_tenant_id"`
	DemoToken    string `json:"demo_token"`
	// DemoUserEmail and DemoUserPassword sign in to the dashboard
	// (/dashboard) as the demo tenant's owner.
	DemoUserEmail    string `json:"demo_user_email"`
	DemoUserPassword string `json:"demo_user_password"`
	// KafkaBrokers is the Kafka-protocol broker's address (host:port, comma
	// separated), for watching the paylane.*.v1 topics with any Kafka client.
	KafkaBrokers string `json:"kafka_brokers"`
	// StripeAPIBase is the local stripe-mock that stands in for Stripe's API
	// on the Stripe rail (empty when it could not start).
	StripeAPIBase string `json:"stripe_api_base,omitempty"`
}

// readFile returns the devstack.json of a previous start, or a zero File
// when there is none or it cannot be parsed (it is rewritten at every start).
func readFile(path string) File {
	var f File
	data, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(data, &f) != nil {
		return File{}
	}
	return f
}

// writeFile writes devstack.json with mode 0600: it holds the admin token.
func writeFile(path string, f File) error {
	return writeJSON(path, f, 0o600)
}
