// Command batch-svc serves asynchronous batch ingest: batch submissions,
// batch reads and the workers that write the items. Configuration comes
// from the environment (see the module's README); `batch-svc migrate`
// applies the database migrations and exits.
package main

import (
	batchsvc "github.com/paylane/paylane/batch-svc"
	"github.com/paylane/paylane/libs/svcrun"
)

func main() { svcrun.Main("batch-svc", batchsvc.ConfigFromEnv, batchsvc.Run) }
