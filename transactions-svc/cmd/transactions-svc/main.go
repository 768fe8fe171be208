// Command transactions-svc serves receivables, payables, campaigns and the
// hosted pay and payout pages. Configuration comes from the environment (see
// the module's README); `transactions-svc migrate` applies the database
// migrations and exits.
package main

import (
	"github.com/paylane/paylane/libs/svcrun"
	transactionssvc "github.com/paylane/paylane/transactions-svc"
)

func main() { svcrun.Main("transactions-svc", transactionssvc.ConfigFromEnv, transactionssvc.Run) }
