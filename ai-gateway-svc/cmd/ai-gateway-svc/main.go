// Command ai-gateway-svc serves the AI gateway routes (/api/v1/gateway):
// resolve or create a contact, prepare, confirm and read a transaction
// through contacts-svc and transactions-svc. Configuration comes from the
// environment (see the module's README).
package main

import (
	aigatewaysvc "github.com/paylane/paylane/ai-gateway-svc"
	"github.com/paylane/paylane/libs/svcrun"
)

func main() { svcrun.Main("ai-gateway-svc", aigatewaysvc.ConfigFromEnv, aigatewaysvc.Run) }
