package gateway

import (
	"fmt"

	"github.com/paylane/paylane/libs/discovery"
)

// RegistrarFromEnv returns the Consul registrar for Config.Registrar when
// CONSUL_HTTP_ADDR is set (ACL token from CONSUL_HTTP_TOKEN), read through
// lookup (os.LookupEnv), and nil otherwise: without Consul (Kubernetes,
// devstack) the gateway registers nowhere.
func RegistrarFromEnv(lookup func(string) (string, bool)) (discovery.Registrar, error) {
	if addr, _ := lookup("CONSUL_HTTP_ADDR"); addr == "" {
		return nil, nil
	}
	d, err := discovery.FromEnvironment(lookup)
	if err != nil {
		return nil, fmt.Errorf("CONSUL_HTTP_ADDR: %w", err)
	}
	return d.Registrar, nil
}
