// Command dashboard-svc serves the tenant dashboard (/dashboard).
// Configuration comes from the environment (see the module's README);
// `dashboard-svc migrate` applies the migrations and exits.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	dashboardsvc "github.com/paylane/paylane/dashboard-svc"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:])
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "dashboard-svc:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	cfg, err := dashboardsvc.ConfigFromEnv()
	if err != nil {
		return fmt.Errorf("reading configuration: %w", err)
	}
	switch {
	case len(args) == 0:
		return dashboardsvc.Run(ctx, cfg)
	case len(args) == 1 && args[0] == "migrate":
		return dashboardsvc.Migrate(ctx, cfg)
	default:
		return fmt.Errorf("unknown arguments %q (usage: dashboard-svc [migrate])", args)
	}
}
