// Command chaos runs fault scenarios against the stack in process mode
// (every service and the gateway its own process under deploy/supervisor)
// under a steady mixed load, records every answer and then checks that
// nothing answered 2xx was lost: the entity is readable, its events are on
// the broker (once each, or repeated with the same event id), the
// subscribed ones reached the webhook receiver, no batch is left queued or
// processing, and replaying each Idempotency-Key gives the stored answer.
// Each scenario prints one line
//
//	<scenario>: N writes answered 2xx, N lost, N duplicates, N stuck
//
// and the command exits 1 when any scenario lost or duplicated something
// or left something stuck. `make chaos` runs it; see docs/reliability.md.
//
//	chaos [-scenarios kill,kafka,...] [-root dir] [-keep] [-v]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:])
	stop()
	switch {
	case errors.Is(err, flag.ErrHelp):
		os.Exit(2)
	case errors.Is(err, errFailed):
		os.Exit(1)
	case err != nil:
		fmt.Fprintln(os.Stderr, "chaos:", err)
		os.Exit(1)
	}
}

// errFailed is the result of a run in which a scenario lost, duplicated or
// left something stuck.
var errFailed = errors.New("a scenario failed")

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("chaos", flag.ContinueOnError)
	names := fs.String("scenarios", strings.Join(scenarioNames(), ","), "comma-separated scenarios to run, in this order")
	root := fs.String("root", "", "devstack root (default: a fresh temporary directory, removed afterwards)")
	keep := fs.Bool("keep", false, "keep the temporary root (logs, binaries, database) afterwards")
	verbose := fs.Bool("v", false, "print the devstack's and the supervisor's progress")
	if err := fs.Parse(args); err != nil {
		return err
	}
	chosen, err := pickScenarios(*names)
	if err != nil {
		return err
	}
	env, err := startEnv(ctx, *root, *keep, *verbose)
	if err != nil {
		return err
	}
	defer env.stop()
	failed := false
	for _, sc := range chosen {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		env.logf("scenario %s: %s", sc.name, sc.about)
		res, err := sc.run(ctx, env)
		if err != nil {
			fmt.Printf("%s: error: %v\n", sc.name, err)
			failed = true
			continue
		}
		fmt.Println(res.line(sc.name))
		for _, d := range res.details {
			fmt.Printf("  %s\n", d)
		}
		for _, f := range res.failures {
			fmt.Printf("  FAILED: %s\n", f)
		}
		if !res.ok() {
			failed = true
		}
	}
	if failed {
		return errFailed
	}
	return nil
}
