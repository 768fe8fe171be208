// Command ai-gateway-svc serves the AI gateway routes (/api/v1/gateway):
// resolve or create a contact, prepare, confirm and read a transaction
// through contacts-svc and transactions-svc. Configuration comes from the
// environment (see the module's README).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	aigatewaysvc "github.com/paylane/paylane/ai-gateway-svc"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:])
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "ai-gateway-svc:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	if len(args) != 0 {
		return fmt.Errorf("unknown arguments %q (usage: ai-gateway-svc)", args)
	}
	cfg, err := aigatewaysvc.ConfigFromEnv()
	if err != nil {
		return fmt.Errorf("reading configuration: %w", err)
	}
	return aigatewaysvc.Run(ctx, cfg)
}
