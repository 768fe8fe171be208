// Command contacts-svc serves contacts, phone records and contact field
// definitions. Configuration comes from the environment (see the module's
// README); `contacts-svc migrate` applies the database migrations and exits.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	contacts "github.com/paylane/paylane/contacts-svc"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:])
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "contacts-svc:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	cfg, err := contacts.ConfigFromEnv()
	if err != nil {
		return fmt.Errorf("reading configuration: %w", err)
	}
	switch {
	case len(args) == 0:
		return contacts.Run(ctx, cfg)
	case len(args) == 1 && args[0] == "migrate":
		return contacts.Migrate(ctx, cfg)
	default:
		return fmt.Errorf("unknown arguments %q (usage: contacts-svc [migrate])", args)
	}
}
