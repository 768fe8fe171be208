// Command identity-svc serves tenants, tokens and token introspection.
// Configuration comes from the environment (see the module's README);
// `identity-svc migrate` applies the database migrations and exits.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	identity "github.com/paylane/paylane/identity-svc"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:])
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "identity-svc:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	cfg, err := identity.ConfigFromEnv()
	if err != nil {
		return fmt.Errorf("reading configuration: %w", err)
	}
	switch {
	case len(args) == 0:
		return identity.Run(ctx, cfg)
	case len(args) == 1 && args[0] == "migrate":
		return identity.Migrate(ctx, cfg)
	default:
		return fmt.Errorf("unknown arguments %q (usage: identity-svc [migrate])", args)
	}
}
