// Command webhook-svc serves webhook endpoints and delivers events to them.
// Configuration comes from the environment (see the module's README);
// `webhook-svc migrate` applies the database migrations and exits.
package main

import (
	"github.com/paylane/paylane/libs/svcrun"
	webhooksvc "github.com/paylane/paylane/webhook-svc"
)

func main() { svcrun.Main("webhook-svc", webhooksvc.ConfigFromEnv, webhooksvc.Run) }
