// Command identity-svc serves tenants, tokens and token introspection.
// Configuration comes from the environment (see the module's README);
// `identity-svc migrate` applies the database migrations and exits.
package main

import (
	identitysvc "github.com/paylane/paylane/identity-svc"
	"github.com/paylane/paylane/libs/svcrun"
)

func main() { svcrun.Main("identity-svc", identitysvc.ConfigFromEnv, identitysvc.Run) }
