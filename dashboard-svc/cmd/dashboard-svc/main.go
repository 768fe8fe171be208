// Command dashboard-svc serves the tenant dashboard (/dashboard).
// Configuration comes from the environment (see the module's README);
// `dashboard-svc migrate` applies the migrations and exits.
package main

import (
	dashboardsvc "github.com/paylane/paylane/dashboard-svc"
	"github.com/paylane/paylane/libs/svcrun"
)

func main() { svcrun.Main("dashboard-svc", dashboardsvc.ConfigFromEnv, dashboardsvc.Run) }
