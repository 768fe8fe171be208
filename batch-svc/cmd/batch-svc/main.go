// Command batch-svc serves asynchronous batch ingest: batch submissions,
// batch reads and the workers that write the items. Configuration comes
// from the environment (see the module's README); `batch-svc migrate`
// applies the database migrations and exits.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	batchsvc "github.com/paylane/paylane/batch-svc"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:])
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "batch-svc:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	cfg, err := batchsvc.ConfigFromEnv()
	if err != nil {
		return fmt.Errorf("reading configuration: %w", err)
	}
	switch {
	case len(args) == 0:
		return batchsvc.Run(ctx, cfg)
	case len(args) == 1 && args[0] == "migrate":
		return batchsvc.Migrate(ctx, cfg)
	default:
		return fmt.Errorf("unknown arguments %q (usage: batch-svc [migrate])", args)
	}
}
