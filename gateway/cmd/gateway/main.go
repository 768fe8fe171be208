// Command gateway runs Paylane's public edge; its configuration comes from
// the environment (see gateway/README.md).
package main

import (
	"github.com/paylane/paylane/gateway"
	"github.com/paylane/paylane/libs/svcrun"
)

func main() { svcrun.Main("gateway", gateway.ConfigFromEnv, gateway.Run) }
