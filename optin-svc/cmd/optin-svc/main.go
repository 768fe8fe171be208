// Command optin-svc serves the suppression list, opt-in codes and consents,
// SMS messaging, the opt-in landing page and inbound SMS. Configuration
// comes from the environment (see the module's README); `optin-svc migrate`
// applies the database migrations and exits.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	optin "github.com/paylane/paylane/optin-svc"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:])
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "optin-svc:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	cfg, err := optin.ConfigFromEnv()
	if err != nil {
		return fmt.Errorf("reading configuration: %w", err)
	}
	switch {
	case len(args) == 0:
		return optin.Run(ctx, cfg)
	case len(args) == 1 && args[0] == "migrate":
		return optin.Migrate(ctx, cfg)
	default:
		return fmt.Errorf("unknown arguments %q (usage: optin-svc [migrate])", args)
	}
}
