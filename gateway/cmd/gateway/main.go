// Command gateway runs Paylane's public edge; its configuration comes from
// the environment (see gateway/README.md).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/paylane/paylane/gateway"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gateway:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	if len(args) > 0 {
		if args[0] == "migrate" { // the gateway owns no database
			return nil
		}
		return fmt.Errorf("unknown subcommand %q (want none, or migrate)", args[0])
	}
	cfg, err := gateway.ConfigFromEnv()
	if err != nil {
		return err
	}
	return gateway.Run(ctx, cfg)
}
