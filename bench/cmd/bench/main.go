// Command bench measures Paylane end to end on this machine and prints one
// table: every benchmark next to a baseline measured in the same run (a bare
// Fiber + pgx server on the same Postgres), the ratio and the target. It
// starts the devstack in this process in a fresh temporary root (every
// listener on 127.0.0.1:0), drives it with an in-repo Go load generator and
// removes the root afterwards. See docs/benchmarks.md.
//
//	bench [-conns 64] [-warmup 2s] [-duration 10s] [-rounds 3] [-contacts 1000]
//	      [-footprint=true] [-db-conns 10] [-only read,write,...] [-profile dir] [-keep] [-v]
//	      [-whatif-idle-conns n] [-whatif-pipeline] [-whatif-gomaxprocs n]
//	bench -only scale [-scale-rows 1000000] [-duration 10s]
//
// The data-growth benchmark (-only scale) prints a table of its own; it
// runs only when -only names it.
//
// It exits 0 when the table is printed, targets met or not; non-zero only
// when the harness itself fails.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// config are the command's flags.
type config struct {
	conns            int
	warmup, duration time.Duration
	rounds           int
	contacts         int
	// dbConns is DB_MAX_CONNS of the services run as own processes.
	dbConns       int
	footprint     bool
	profileDir    string
	keep, verbose bool
	// only, when not empty, names the benchmarks to run.
	only map[string]bool
	// scaleRows is the size of the data-growth benchmark's large tenant.
	scaleRows int
	// whatifPipeline adds the bare runs of the POST's statements, one round
	// trip each and pipelined, to the write benchmark.
	whatifPipeline bool
	// whatifIdleConns, when positive, is set as MaxIdleConnsPerHost of
	// net/http's DefaultTransport before the devstack starts.
	whatifIdleConns int
	// whatifGOMAXPROCS, when positive, is GOMAXPROCS of every service run as
	// its own process (unset, the Go runtime's choice: this host's CPUs).
	whatifGOMAXPROCS int
}

// selected reports whether benchmark name runs: every one but scale when
// -only is not set.
func (c config) selected(name string) bool {
	if len(c.only) == 0 {
		return name != "scale"
	}
	return c.only[name]
}

// runs reports whether the step name runs: own (the services as own
// processes) whenever read, write or footprint does.
func (c config) runs(step string) bool {
	if step == "own" {
		return c.selected("read") || c.selected("write") || c.selected("footprint")
	}
	return c.selected(step)
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg, err := parseFlags(os.Args[1:])
	if err != nil {
		os.Exit(2)
	}
	out, err := run(ctx, cfg)
	if err == nil {
		err = out.print(os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		stop()
		os.Exit(1)
	}
}

func parseFlags(args []string) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.IntVar(&cfg.conns, "conns", 64, "concurrent connections of the read and write benchmarks")
	fs.DurationVar(&cfg.warmup, "warmup", 2*time.Second, "unmeasured load before each measured window")
	fs.DurationVar(&cfg.duration, "duration", 10*time.Second, "measured window of each load run")
	fs.IntVar(&cfg.rounds, "rounds", 3, "the read and write benchmarks alternate product and baseline this many times, each window -duration/-rounds; the batch benchmark runs each batch this many times (at most 5) and reports the median")
	fs.IntVar(&cfg.contacts, "contacts", 1000, "contacts created for the read benchmark")
	fs.IntVar(&cfg.scaleRows, "scale-rows", 1_000_000, "contacts and receivables of the data-growth benchmark's large tenant")
	fs.IntVar(&cfg.dbConns, "db-conns", serviceDBConns, "DB_MAX_CONNS of the services run as own processes (the devstack uses 10)")
	fs.BoolVar(&cfg.footprint, "footprint", true, "print benchmark 5's memory rows of every service run as its own process")
	fs.StringVar(&cfg.profileDir, "profile", "", "write CPU profiles (pprof, from the internal listeners) into this directory")
	fs.BoolVar(&cfg.keep, "keep", false, "keep the temporary devstack root (logs, database) afterwards")
	fs.BoolVar(&cfg.verbose, "v", false, "print the devstack's progress")
	only := fs.String("only", "", "comma-separated benchmarks to run: read, write, batch, webhooks, footprint, scale (default all but scale)")
	fs.IntVar(&cfg.whatifIdleConns, "whatif-idle-conns", 0,
		"what-if: MaxIdleConnsPerHost of net/http's DefaultTransport in the devstack process (Go's default is 2)")
	fs.IntVar(&cfg.whatifGOMAXPROCS, "whatif-gomaxprocs", 0,
		"what-if: GOMAXPROCS of every own process (deploy/k8s limits a service's container to 1 CPU, the gateway's to 2)")
	fs.BoolVar(&cfg.whatifPipeline, "whatif-pipeline", false,
		"what-if: also run contacts-svc's write statements bare, one round trip each and pipelined")
	err := fs.Parse(args)
	if err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "unexpected arguments %q\n", fs.Args())
		return config{}, flag.ErrHelp
	}
	if cfg.only, err = parseOnly(*only); err != nil {
		fmt.Fprintln(fs.Output(), err)
		return config{}, flag.ErrHelp
	}
	if cfg.conns < 1 || cfg.dbConns < 1 || cfg.duration <= 0 || cfg.warmup < 0 || cfg.contacts < 1 || cfg.rounds < 1 || cfg.scaleRows < 100 {
		fmt.Fprintln(fs.Output(), "-conns, -db-conns, -contacts and -rounds must be positive, -scale-rows at least 100, -duration positive, -warmup not negative")
		return config{}, flag.ErrHelp
	}
	return cfg, nil
}

// parseOnly reads the -only list.
func parseOnly(list string) (map[string]bool, error) {
	if list == "" {
		return nil, nil
	}
	known := map[string]bool{"read": true, "write": true, "batch": true, "webhooks": true, "footprint": true, "scale": true}
	out := map[string]bool{}
	for name := range strings.SplitSeq(list, ",") {
		name = strings.TrimSpace(name)
		if !known[name] {
			return nil, fmt.Errorf("-only: unknown benchmark %q", name)
		}
		out[name] = true
	}
	return out, nil
}
