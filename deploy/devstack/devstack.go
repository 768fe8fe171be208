// Package devstack runs the whole Paylane stack in one process for local
// development and end-to-end tests: a persistent Postgres cluster under
// Root/pg with one database per service, an in-process Kafka-protocol
// broker, every service through its Run(ctx, Config), and the gateway on
// HTTPS with a local CA. It bootstraps a demo tenant and token and writes
// Root/devstack.json.
package devstack

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/paylane/paylane/deploy/supervisor"
	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/libs/pgcluster"
)

// stack is one run of the devstack.
type stack struct {
	opts    Options
	paths   paths
	tls     TLSFiles
	secrets Secrets
	cluster *pgcluster.Cluster
	brokers []string
	// stripeURL is the local stripe-mock (empty when it could not start).
	stripeURL string
	lock      *os.File // held while the stack runs (see lockRoot)
	// listeners are the addresses reserved for the gateway and the services
	// (see reserve); serve closes those a failed start left unserved.
	listeners []net.Listener
	// procs runs the services and the gateway in process mode (nil in
	// process).
	procs *supervisor.Supervisor
	// internalAddrs are the processes' internal listeners (process mode).
	internalAddrs map[string]string
	// replicaURLs are the public URLs of further gateway replicas.
	replicaURLs []string
}

// reserve binds addr (port 0 picks one) for a part of the stack and returns
// the listener with addr's host and the bound port. The listener is handed to
// whoever serves the address: an address picked, released and bound again
// later could be taken in between (by another listener picking port 0).
func (s *stack) reserve(addr string) (net.Listener, string, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, "", fmt.Errorf("listen address %q: %w", addr, err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", fmt.Errorf("listening on %s: %w", addr, err)
	}
	s.listeners = append(s.listeners, ln)
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return ln, net.JoinHostPort(host, port), nil
}

// Run starts the stack and blocks until ctx is done, then stops the
// services, the broker and Postgres (data kept). It returns an error when
// something fails to start or a service stops on its own.
func Run(ctx context.Context, opts Options) error {
	opts, err := opts.withDefaults()
	if err != nil {
		return err
	}
	s := &stack{opts: opts, paths: opts.paths()}
	defer s.unlock()
	if err := s.prepareFiles(); err != nil {
		return err
	}
	if err := s.startPostgres(ctx); err != nil {
		return err
	}
	defer s.stopPostgres()
	brokers, stopBroker, err := startBroker(opts.BrokerListen)
	if err != nil {
		return err
	}
	defer func() {
		stopBroker()
		s.logf("broker stopped")
	}()
	s.brokers = brokers
	s.logf("Kafka-protocol broker on %v", brokers)
	stopStripe := s.startStripeMock(ctx)
	defer stopStripe()
	return s.serve(ctx)
}

// prepareFiles creates Root, the certificates and the secrets (each only
// once; later starts reuse them).
func (s *stack) prepareFiles() error {
	if err := prepareRoot(s.paths.root); err != nil {
		return err
	}
	lock, err := lockRoot(s.paths.root)
	if err != nil {
		return err
	}
	s.lock = lock
	files, err := EnsureTLS(s.paths.tls, time.Now())
	if err != nil {
		return err
	}
	s.tls = files
	sec, err := LoadOrCreateSecrets(s.paths.secrets)
	if err != nil {
		return err
	}
	s.secrets = sec
	return nil
}

// startPostgres installs the server when missing and starts the cluster
// under Root/pg, stopping a postgres a crashed earlier run left behind.
func (s *stack) startPostgres(ctx context.Context) error {
	if err := pgcluster.EnsureBinaries(ctx, slog.New(slog.NewTextHandler(s.opts.Log, nil))); err != nil {
		return fmt.Errorf("postgres binaries: %w", err)
	}
	if err := stopStaleCluster(ctx, s.paths.pg, s.opts.Log); err != nil {
		return err
	}
	s.logf("starting postgres in %s", s.paths.pg)
	pgLog, err := newPGLog(s.paths.root)
	if err != nil {
		return err
	}
	c, err := pgcluster.Start(ctx, pgcluster.Options{Dir: s.paths.pg, Log: pgLog})
	if err != nil {
		return fmt.Errorf("starting postgres: %w", err)
	}
	s.cluster = c
	s.logf("postgres listening on 127.0.0.1:%d (its log: %s)", c.Port, displayPath(pgLog.path))
	return nil
}

func (s *stack) unlock() {
	if s.lock != nil {
		s.lock.Close()
	}
}

func (s *stack) stopPostgres() {
	if err := s.cluster.Stop(); err != nil {
		s.logf("stopping postgres: %v", err)
		return
	}
	s.logf("postgres stopped")
}

// serve runs the services and the gateway until ctx is done or one of them
// fails.
func (s *stack) serve(parent context.Context) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	defer func() {
		for _, ln := range s.listeners {
			_ = ln.Close() // served listeners are closed already
		}
	}()
	defer s.stopProcesses()
	g, gctx := errgroup.WithContext(ctx)
	info, startErr := s.start(gctx, g)
	if startErr == nil {
		if s.opts.Ready != nil {
			s.opts.Ready(info)
		}
		<-gctx.Done()
		s.logf("stopping")
	}
	cancel()
	if err := g.Wait(); err != nil {
		return err
	}
	if startErr != nil && parent.Err() == nil {
		return startErr
	}
	s.logf("services stopped")
	return nil
}

// start brings up services and gateway, bootstraps the demo tenant, writes
// devstack.json and prints the banner.
func (s *stack) start(ctx context.Context, g *errgroup.Group) (Info, error) {
	addrs, public, adminAddr, err := s.startStack(ctx, g)
	if err != nil {
		return Info{}, err
	}
	info, err := s.describe(addrs, public, adminAddr)
	if err != nil {
		return Info{}, err
	}
	hc, err := s.httpClient()
	if err != nil {
		return Info{}, err
	}
	defer hc.CloseIdleConnections()
	admin := client.NewAdmin(info.AdminURL, s.secrets.AdminToken, hc)
	d, err := ensureDemo(ctx, admin, client.New("http://"+addrs["identity"], hc), readFile(s.paths.state))
	if err != nil {
		return Info{}, err
	}
	info.DemoTenantID, info.DemoToken = d.tenantID, d.token
	info.DemoUserEmail, info.DemoUserPassword, err = ensureDemoUser(ctx, admin,
		client.NewWithSecret("http://"+addrs["identity"], s.secrets.ServiceSecret, hc), d.tenantID, readFile(s.paths.state))
	if err != nil {
		return Info{}, err
	}
	if err := writeFile(s.paths.state, info.File); err != nil {
		return Info{}, err
	}
	printBanner(s.opts.Log, s.paths.root, info.File)
	return info, nil
}

// startStack starts the services and the gateway, in this process or (with
// Options.Processes) as processes of their own, and returns the services'
// addresses and the gateway's public and admin addresses.
func (s *stack) startStack(ctx context.Context, g *errgroup.Group) (map[string]string, string, string, error) {
	if s.opts.Processes {
		return s.startProcesses(ctx)
	}
	// Services put the gateway's URL in the links they send (payment pages,
	// opt-in confirmations), so the public listener is bound first and its
	// port settled before any service starts.
	publicLn, publicAddr, err := s.reserve(s.opts.GatewayAddr)
	if err != nil {
		return nil, "", "", fmt.Errorf("gateway: %w", err)
	}
	s.opts.GatewayAddr = publicAddr
	addrs, err := s.startServices(ctx, g)
	if err != nil {
		return nil, "", "", err
	}
	gw, err := s.startGateway(ctx, g, publicLn, addrs)
	if err != nil {
		return nil, "", "", err
	}
	return addrs, gw.Public, gw.Admin, nil
}

// describe fills Info (without the demo tenant) from the bound addresses.
func (s *stack) describe(addrs map[string]string, public, adminAddr string) (Info, error) {
	gatewayURL, err := localURL("https", "localhost", public)
	if err != nil {
		return Info{}, err
	}
	// The gateway serves its admin listener with the same certificate as the
	// public one (gateway.Config: TLS files make both listeners TLS).
	adminURL, err := localURL("https", "127.0.0.1", adminAddr)
	if err != nil {
		return Info{}, err
	}
	return Info{
		File: File{
			GatewayURL:    gatewayURL,
			CAFile:        s.tls.CACert,
			AdminURL:      adminURL,
			AdminToken:    s.secrets.AdminToken,
			SMSAuthToken:  s.secrets.SMSAuthToken,
			KafkaBrokers:  strings.Join(s.brokers, ","),
			StripeAPIBase: s.stripeURL,
		},
		Root:          s.paths.root,
		GatewayAddr:   public,
		AdminAddr:     adminAddr,
		Services:      addrs,
		Brokers:       s.brokers,
		PostgresPort:  s.cluster.Port,
		Processes:     s.procs,
		InternalAddrs: s.internalAddrs,
		Postgres:      s.cluster,
		GatewayURLs:   append([]string{gatewayURL}, s.replicaURLs...),
	}, nil
}

// httpClient trusts the local CA, for the admin listener.
func (s *stack) httpClient() (*http.Client, error) {
	pool := x509.NewCertPool()
	pem, err := os.ReadFile(s.tls.CACert)
	if err != nil {
		return nil, fmt.Errorf("reading the CA: %w", err)
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s holds no certificate", s.tls.CACert)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return &http.Client{Timeout: 10 * time.Second, Transport: tr}, nil
}

func (s *stack) logf(format string, args ...any) {
	fmt.Fprintf(s.opts.Log, "devstack: "+format+"\n", args...)
}
