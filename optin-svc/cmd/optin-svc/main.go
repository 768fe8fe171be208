// Command optin-svc serves the suppression list, opt-in codes and consents,
// SMS messaging, the opt-in landing page and inbound SMS. Configuration
// comes from the environment (see the module's README); `optin-svc migrate`
// applies the database migrations and exits.
package main

import (
	"github.com/paylane/paylane/libs/svcrun"
	optinsvc "github.com/paylane/paylane/optin-svc"
)

func main() { svcrun.Main("optin-svc", optinsvc.ConfigFromEnv, optinsvc.Run) }
