package devstack

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/paylane/paylane/deploy/supervisor"
)

// gatewayProcess is the gateway's name under the supervisor.
const gatewayProcess = "gateway"

// procAddrs are the listeners of the process mode, picked before any
// process starts (services name each other, and a restarted process binds
// the same addresses again).
type procAddrs struct {
	http, internal map[string]string // by service name (the table's)
	public, admin  string            // the gateway's listeners
	gwInternal     string
	// replicas are the listeners of further gateway replicas
	// (Options.GatewayReplicas).
	replicas []gatewayAddrs
}

// gatewayAddrs are one gateway replica's listeners.
type gatewayAddrs struct{ public, admin, internal string }

// startProcesses builds the binaries, migrates each database with
// `<binary> migrate` (as compose's one-shot migrate containers do) and
// starts every service and then the gateway as processes of their own under
// a supervisor, each configured by its environment alone. It returns the
// services' HTTP addresses and the gateway's public and admin addresses.
func (s *stack) startProcesses(ctx context.Context) (addrs map[string]string, public, admin string, err error) {
	rows := services()
	bin := s.opts.BinDir
	if bin == "" {
		bin = filepath.Join(s.paths.root, "bin")
	}
	if err := s.buildBinaries(ctx, bin, rows); err != nil {
		return nil, "", "", err
	}
	a, err := s.pickAddrs(rows)
	if err != nil {
		return nil, "", "", err
	}
	// Links in payment pages and opt-in messages carry the public port,
	// known now that it is picked.
	s.opts.GatewayAddr, s.opts.AdminAddr = a.public, a.admin
	all := make([]deps, len(rows))
	for i, row := range rows {
		d, err := s.depsFor(ctx, row, a.http)
		if err != nil {
			return nil, "", "", err
		}
		d.internalAddr = a.internal[row.name]
		all[i] = d
	}
	if err := s.migrate(ctx, bin, rows, all); err != nil {
		return nil, "", "", err
	}
	specs := s.processSpecs(bin, rows, all, a)
	sup, err := supervisor.New(supervisor.Options{Log: s.opts.Log}, specs...)
	if err != nil {
		return nil, "", "", err
	}
	s.logf("starting %d processes from %s", len(specs), bin)
	if err := sup.Start(ctx); err != nil {
		return nil, "", "", fmt.Errorf("starting processes: %w", err)
	}
	s.procs = sup
	s.internalAddrs = map[string]string{gatewayProcess: a.gwInternal}
	for _, row := range rows {
		s.internalAddrs[row.binary] = a.internal[row.name]
	}
	for _, r := range a.replicas {
		s.replicaURLs = append(s.replicaURLs, publicBaseURL(r.public))
	}
	for _, row := range rows {
		s.logf("%s (pid %d) listening on %s", row.binary, sup.PID(row.binary), a.http[row.name])
	}
	s.logf("gateway (pid %d) listening on %s, admin %s", sup.PID(gatewayProcess), a.public, a.admin)
	return a.http, a.public, a.admin, nil
}

// buildBinaries compiles every service's command and the gateway's into bin
// with one `go build` from the workspace root.
func (s *stack) buildBinaries(ctx context.Context, bin string, rows []service) error {
	root, err := DefaultRoot()
	if err != nil {
		return err
	}
	pkgs := []string{"github.com/paylane/paylane/gateway/cmd/gateway"}
	for _, r := range rows {
		pkgs = append(pkgs, "github.com/paylane/paylane/"+r.binary+"/cmd/"+r.binary)
	}
	s.logf("building %d binaries into %s", len(pkgs), bin)
	cmd := exec.CommandContext(ctx, "go", append([]string{"build", "-o", bin + string(os.PathSeparator)}, pkgs...)...)
	cmd.Dir = filepath.Dir(root)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %w\n%s", err, out)
	}
	return nil
}

// pickAddrs picks the listeners: free loopback ports, and the gateway's
// configured addresses unless they ask for port 0.
func (s *stack) pickAddrs(rows []service) (procAddrs, error) {
	a := procAddrs{http: map[string]string{}, internal: map[string]string{}}
	var err error
	pick := func(addr string) string {
		if err != nil {
			return ""
		}
		var got string
		got, err = freeAddr(addr)
		return got
	}
	for _, r := range rows {
		a.http[r.name], a.internal[r.name] = pick("127.0.0.1:0"), pick("127.0.0.1:0")
	}
	a.public, a.admin, a.gwInternal = pick(s.opts.GatewayAddr), pick(s.opts.AdminAddr), pick("127.0.0.1:0")
	for range max(s.opts.GatewayReplicas-1, 0) {
		a.replicas = append(a.replicas, gatewayAddrs{pick("127.0.0.1:0"), pick("127.0.0.1:0"), pick("127.0.0.1:0")})
	}
	return a, err
}

// freeAddr returns addr when it names a port, else addr's host with a port
// free now. A process binds it shortly after; another program could take it
// in between, which the supervisor would report as a start that never gets
// ready.
func freeAddr(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("listen address %q: %w", addr, err)
	}
	if port != "0" && port != "" {
		return addr, nil
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return "", fmt.Errorf("finding a free port on %q: %w", host, err)
	}
	defer ln.Close()
	_, port, _ = net.SplitHostPort(ln.Addr().String())
	return net.JoinHostPort(host, port), nil
}

// migrate runs `<binary> migrate` for every service with a database, all
// at once.
func (s *stack) migrate(ctx context.Context, bin string, rows []service, all []deps) error {
	var g errgroup.Group
	for i, row := range rows {
		if row.noDatabase {
			continue
		}
		env := append(row.env(all[i]), "MIGRATE_DATABASE_URL="+all[i].ownerDSN)
		g.Go(func() error {
			cmd := exec.CommandContext(ctx, filepath.Join(bin, row.binary), "migrate")
			cmd.Env = env
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("%s migrate: %w\n%s", row.binary, err, out)
			}
			return nil
		})
	}
	return g.Wait()
}

// otelEnv is the OTEL_* variables of the devstack's own environment: a
// developer who points them at a collector traces the process-mode stack
// as the in-process one, whose services read them directly.
func otelEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "OTEL_") {
			out = append(out, kv)
		}
	}
	return out
}

// processSpecs are the supervisor's specs in start order: services by
// stage, then the gateway. The devstack's OTEL_* variables pass through;
// Options.ServiceEnv adds to (and overrides) a process's environment.
func (s *stack) processSpecs(bin string, rows []service, all []deps, a procAddrs) []supervisor.Spec {
	otel := otelEnv()
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return rows[order[i]].stage < rows[order[j]].stage })
	var specs []supervisor.Spec
	for _, i := range order {
		row := rows[i]
		specs = append(specs, supervisor.Spec{
			Name: row.binary, Path: filepath.Join(bin, row.binary),
			Env:      slices.Concat(row.env(all[i]), otel, s.opts.ServiceEnv[row.binary]),
			ReadyURL: "http://" + a.internal[row.name] + "/readyz",
			Output:   s.opts.ServiceLog,
		})
	}
	gw := gatewayEnv(s.gatewayDeps(a.http, a.gwInternal))
	specs = append(specs, supervisor.Spec{
		Name: gatewayProcess, Path: filepath.Join(bin, "gateway"),
		Env:      slices.Concat(gw, otel, s.opts.ServiceEnv[gatewayProcess]),
		ReadyURL: "http://" + a.gwInternal + "/readyz",
		Output:   s.opts.ServiceLog,
	})
	for i, r := range a.replicas {
		d := s.gatewayDeps(a.http, r.internal)
		d.listenAddr, d.adminAddr, d.publicURL = r.public, r.admin, publicBaseURL(r.public)
		specs = append(specs, supervisor.Spec{
			Name: fmt.Sprintf("%s-%d", gatewayProcess, i+2), Path: filepath.Join(bin, "gateway"),
			Env:      slices.Concat(gatewayEnv(d), otel, s.opts.ServiceEnv[gatewayProcess]),
			ReadyURL: "http://" + r.internal + "/readyz",
			Output:   s.opts.ServiceLog,
		})
	}
	return specs
}

// stopProcesses stops the supervised processes (process mode), before the
// broker and Postgres stop.
func (s *stack) stopProcesses() {
	if s.procs == nil {
		return
	}
	began := time.Now()
	s.procs.Stop()
	s.logf("processes stopped in %s", time.Since(began).Round(time.Millisecond))
}
