// Command fuzz is `make fuzz`: it finds every Go fuzz target of the
// workspace and runs each for -fuzztime, then starts a devstack of its own
// (fresh state, ports chosen by the system) and sends it the HTTP fuzz
// pass: hostile requests derived from the served OpenAPI document. It
// prints one line for the pass,
//
//	http fuzz: N requests, N answers >= 500, N outside the envelope, N hung
//
// and exits non-zero when a Go fuzz target fails or the pass finds any.
// Run it from the workspace root (go.work):
//
//	go run github.com/paylane/paylane/deploy/cmd/fuzz [-fuzztime 30s] [-requests 50000] [-workers 4] [-seed 1] [-go=false] [-http=false]
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/paylane/paylane/deploy/devstack"
	"github.com/paylane/paylane/deploy/internal/apifuzz"
	"github.com/paylane/paylane/identity-svc/client"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "fuzz:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("fuzz", flag.ContinueOnError)
	fuzztime := fs.String("fuzztime", "30s", "how long each Go fuzz target runs (go test -fuzztime)")
	requests := fs.Int("requests", 50000, "requests of the HTTP fuzz pass")
	workers := fs.Int("workers", 4, "concurrent requests of the HTTP fuzz pass")
	seed := fs.Uint64("seed", 1, "seed of the HTTP fuzz pass (a run is reproducible from it)")
	goFuzz := fs.Bool("go", true, "run the Go fuzz targets")
	httpFuzz := fs.Bool("http", true, "run the HTTP fuzz pass")
	pattern := fs.String("pkgs", "github.com/paylane/paylane/...", "packages searched for Go fuzz targets")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var failed []string
	if *goFuzz {
		targets, err := discover(ctx, *pattern)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "go fuzz: %d targets, %s each\n", len(targets), *fuzztime)
		for _, t := range targets {
			if err := runTarget(ctx, t, *fuzztime, out); err != nil {
				failed = append(failed, fmt.Sprintf("%s %s: %v", t.pkg, t.name, err))
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
		fmt.Fprintf(out, "go fuzz: %d targets, %d failed\n", len(targets), len(failed))
	}
	if *httpFuzz {
		rep, err := httpPass(ctx, apifuzz.PassOptions{Requests: *requests, Workers: *workers, Seed: *seed, Progress: out})
		if err != nil {
			return err
		}
		if rep.Failed() {
			fmt.Fprint(out, rep.Summary())
		}
		fmt.Fprintf(out, "http fuzz: the other tenant's creates meanwhile: %d sent, %d failed\n", rep.BystanderSent, rep.BystanderFailed)
		fmt.Fprintln(out, rep.Line())
		if rep.Failed() {
			failed = append(failed, rep.Line())
		}
	}
	if len(failed) > 0 {
		return errors.New("failed:\n  " + strings.Join(failed, "\n  "))
	}
	return nil
}

// target is one Go fuzz function of one package.
type target struct{ pkg, name string }

var fuzzFunc = regexp.MustCompile(`(?m)^func (Fuzz\w*)\(\w+ \*testing\.F\)`)

// discover lists the fuzz targets of the packages: the packages whose test
// files declare a FuzzXxx(*testing.F) (a cheap first look), then the
// names `go test -list` reports for them.
func discover(ctx context.Context, pattern string) ([]target, error) {
	cmd := exec.CommandContext(ctx, "go", "list", "-f", `{{.ImportPath}}{{range .TestGoFiles}} {{$.Dir}}/{{.}}{{end}}{{range .XTestGoFiles}} {{$.Dir}}/{{.}}{{end}}`, pattern)
	cmd.Stderr = os.Stderr
	listed, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %w", pattern, err)
	}
	var pkgs []string
	sc := bufio.NewScanner(bytes.NewReader(listed))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		for _, f := range fields[1:] {
			src, err := os.ReadFile(f)
			if err == nil && fuzzFunc.Match(src) {
				pkgs = append(pkgs, fields[0])
				break
			}
		}
	}
	if len(pkgs) == 0 {
		return nil, nil
	}
	cmd = exec.CommandContext(ctx, "go", append([]string{"test", "-list", "^Fuzz"}, pkgs...)...)
	cmd.Stderr = os.Stderr
	listOut, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go test -list ^Fuzz: %w", err)
	}
	// The output is each package's names followed by its "ok <pkg>" line.
	var targets []target
	var names []string
	sc = bufio.NewScanner(bytes.NewReader(listOut))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "Fuzz"):
			names = append(names, line)
		case strings.HasPrefix(line, "ok "):
			fields := strings.Fields(line)
			for _, n := range names {
				targets = append(targets, target{pkg: fields[1], name: n})
			}
			names = nil
		}
	}
	sort.Slice(targets, func(i, j int) bool {
		if targets[i].pkg != targets[j].pkg {
			return targets[i].pkg < targets[j].pkg
		}
		return targets[i].name < targets[j].name
	})
	return targets, nil
}

// runTarget runs one fuzz target for fuzztime. A run that failed only by
// the fuzz engine's race at the end of -fuzztime (engineDeadlineRace) runs
// once more; a second failure of any kind fails the target.
func runTarget(ctx context.Context, t target, fuzztime string, out io.Writer) error {
	start := time.Now()
	output, err := fuzzOnce(ctx, t, fuzztime)
	if err != nil && engineDeadlineRace(output) && ctx.Err() == nil {
		fmt.Fprintf(out, "go fuzz: %s %s ended by the fuzz engine's deadline race (no input failed; go.dev/issue/75804), running it once more\n", t.pkg, t.name)
		output, err = fuzzOnce(ctx, t, fuzztime)
	}
	status := "ok"
	if err != nil {
		status = "FAILED"
	}
	fmt.Fprintf(out, "go fuzz: %s %s %s (%s)\n", status, t.pkg, t.name, time.Since(start).Round(time.Second))
	if err != nil {
		out.Write(output)
	}
	return err
}

// fuzzOnce runs go test -fuzz for one target and returns its output.
func fuzzOnce(ctx context.Context, t target, fuzztime string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "go", "test", "-run", "^$", "-fuzz", "^"+t.name+"$", "-fuzztime", fuzztime, t.pkg)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	return buf.Bytes(), err
}

// engineDeadlineRace reports whether a failed fuzz run's output shows only
// the race of Go's fuzz coordinator when -fuzztime ends (go.dev/issue/75804,
// fixed in Go 1.27): the target failed with a bare "context deadline
// exceeded" and nothing else, no failing input written, no panic, no
// message of the target's own (which names its file and line).
func engineDeadlineRace(output []byte) bool {
	s := string(output)
	if strings.Contains(s, "Failing input written") || strings.Contains(s, "panic:") || strings.Contains(s, ".go:") {
		return false
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "--- FAIL: Fuzz") {
			return i+1 < len(lines) && strings.TrimSpace(lines[i+1]) == "context deadline exceeded"
		}
	}
	return false
}

// httpPass starts a devstack in a fresh temporary root on ports the system
// picks, runs the pass against it and stops it.
func httpPass(ctx context.Context, o apifuzz.PassOptions) (apifuzz.Report, error) {
	dir, err := os.MkdirTemp("", "paylane-fuzz-")
	if err != nil {
		return apifuzz.Report{}, err
	}
	if err := os.Chmod(dir, 0o755); err != nil { // the postgres user must reach the cluster below
		return apifuzz.Report{}, err
	}
	logPath := filepath.Join(dir, "devstack.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return apifuzz.Report{}, err
	}
	keep := false
	defer func() {
		logFile.Close()
		if keep { // the log only: the cluster's files are large
			os.RemoveAll(filepath.Join(dir, "root"))
		} else {
			os.RemoveAll(dir)
		}
	}()

	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ready := make(chan devstack.Info, 1)
	done := make(chan error, 1)
	go func() {
		done <- devstack.Run(sctx, devstack.Options{
			Root: filepath.Join(dir, "root"), GatewayAddr: "127.0.0.1:0", AdminAddr: "127.0.0.1:0",
			Log: logFile, Ready: func(i devstack.Info) { ready <- i },
		})
	}()
	fmt.Fprintln(o.Progress, "http fuzz: starting a devstack (log:", logPath+")")
	var info devstack.Info
	select {
	case info = <-ready:
	case err := <-done:
		keep = true
		return apifuzz.Report{}, fmt.Errorf("devstack stopped before it was ready (log kept in %s): %v", logPath, err)
	case <-time.After(5 * time.Minute):
		keep = true
		return apifuzz.Report{}, fmt.Errorf("devstack not ready after 5 minutes (log kept in %s)", logPath)
	}
	stop := func() error {
		cancel()
		return <-done
	}

	pem, err := os.ReadFile(info.CAFile)
	if err != nil {
		stop()
		return apifuzz.Report{}, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	hc := &http.Client{Timeout: 30 * time.Second, Transport: tr}
	admin := client.NewAdmin(info.AdminURL, info.AdminToken, hc)
	fmt.Fprintf(o.Progress, "http fuzz: %d requests, %d at a time, seed %d, against %s\n", o.Requests, o.Workers, o.Seed, info.GatewayURL)
	rep, err := apifuzz.Pass(ctx, apifuzz.Target{GatewayURL: info.GatewayURL, CAFile: info.CAFile, Admin: admin}, o)
	tr.CloseIdleConnections()
	if stopErr := stop(); stopErr != nil && err == nil {
		err = fmt.Errorf("stopping the devstack: %w", stopErr)
	}
	if err != nil || rep.Failed() {
		keep = true
		fmt.Fprintln(o.Progress, "http fuzz: the devstack's log is kept in", logPath)
	}
	return rep, err
}
