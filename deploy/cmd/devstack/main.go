// Command devstack runs the whole Paylane stack on one machine: a Postgres
// cluster under .paylane/, an in-process Kafka-protocol broker, every
// service and the HTTPS gateway (see deploy/devstack/README.md).
//
//	devstack [-root dir] [-gateway-addr :8443] [-admin-addr 127.0.0.1:8444] [-processes]
//	devstack [-root dir] reset
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/paylane/paylane/deploy/devstack"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "devstack:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	reset := len(args) > 0 && args[0] == "reset"
	if reset {
		args = args[1:]
	}
	fs := flag.NewFlagSet("devstack", flag.ContinueOnError)
	root := fs.String("root", "", "state directory (default <repo>/.paylane)")
	gatewayAddr := fs.String("gateway-addr", ":8443", "public HTTPS listener of the gateway")
	adminAddr := fs.String("admin-addr", "127.0.0.1:8444", "admin listener of the gateway")
	processes := fs.Bool("processes", false, "run every service and the gateway as a process of its own (built into <root>/bin), restarted when it exits")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: devstack [flags]        start the local stack")
		fmt.Fprintln(fs.Output(), "       devstack [flags] reset  wipe the state directory")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() == 1 && fs.Arg(0) == "reset" && !reset:
		reset = true
	case fs.NArg() > 0:
		fs.Usage()
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *root == "" {
		r, err := devstack.DefaultRoot()
		if err != nil {
			return err
		}
		*root = r
	}
	if reset {
		return devstack.Reset(ctx, *root, os.Stdout)
	}
	return devstack.Run(ctx, devstack.Options{
		Root:        *root,
		GatewayAddr: *gatewayAddr,
		AdminAddr:   *adminAddr,
		Log:         os.Stdout,
		ServiceLog:  os.Stderr,
		Processes:   *processes,
	})
}
