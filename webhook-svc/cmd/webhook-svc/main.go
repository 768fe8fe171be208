// Command webhook-svc serves webhook endpoints and delivers events to them.
// Configuration comes from the environment (see the module's README);
// `webhook-svc migrate` applies the database migrations and exits.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	webhooksvc "github.com/paylane/paylane/webhook-svc"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:])
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "webhook-svc:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	cfg, err := webhooksvc.ConfigFromEnv()
	if err != nil {
		return fmt.Errorf("reading configuration: %w", err)
	}
	switch {
	case len(args) == 0:
		return webhooksvc.Run(ctx, cfg)
	case len(args) == 1 && args[0] == "migrate":
		return webhooksvc.Migrate(ctx, cfg)
	default:
		return fmt.Errorf("unknown arguments %q (usage: webhook-svc [migrate])", args)
	}
}
