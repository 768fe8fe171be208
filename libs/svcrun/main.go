package svcrun

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/paylane/paylane/libs/envconf"
	"github.com/paylane/paylane/libs/obs"
)

// Config is what Main needs of a service's configuration: its shared part
// (the embedded envconf.Base gives Common).
type Config interface {
	Common() envconf.Base
}

// Main is every command's main: it reads the configuration with fromEnv,
// logs JSON at LOG_LEVEL to stdout, and runs the service until SIGINT or
// SIGTERM; `<name> migrate` applies the migrations and exits. A failure is
// printed to stderr and exits 1.
func Main[C Config](name string, fromEnv func() (C, error), run func(context.Context, C, ...Option) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := Command(ctx, name, os.Args[1:], fromEnv, run)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}

// Command is Main without the process: args are the command's arguments.
func Command[C Config](ctx context.Context, name string, args []string, fromEnv func() (C, error),
	run func(context.Context, C, ...Option) error) error {
	var opts []Option
	switch {
	case len(args) == 0:
	case len(args) == 1 && args[0] == "migrate":
		opts = append(opts, MigrateOnly())
	default:
		return fmt.Errorf("unknown arguments %q (usage: %s [migrate])", args, name)
	}
	cfg, err := fromEnv()
	if err != nil {
		return fmt.Errorf("reading configuration: %w", err)
	}
	log := obs.NewLogger(name, os.Stdout, cfg.Common().LogLevel)
	return run(ctx, cfg, append(opts, WithLogger(log))...)
}
