// Command transactions-svc serves receivables, payables, campaigns and the
// hosted pay and payout pages. Configuration comes from the environment (see
// the module's README); `transactions-svc migrate` applies the database
// migrations and exits.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	transactions "github.com/paylane/paylane/transactions-svc"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:])
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "transactions-svc:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	cfg, err := transactions.ConfigFromEnv()
	if err != nil {
		return fmt.Errorf("reading configuration: %w", err)
	}
	switch {
	case len(args) == 0:
		return transactions.Run(ctx, cfg)
	case len(args) == 1 && args[0] == "migrate":
		return transactions.Migrate(ctx, cfg)
	default:
		return fmt.Errorf("unknown arguments %q (usage: transactions-svc [migrate])", args)
	}
}
