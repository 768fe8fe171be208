package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/paylane/paylane/deploy/devstack"
	"github.com/paylane/paylane/deploy/supervisor"
	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/libs/authz"
)

// env is the running stack and what the scenarios share.
type env struct {
	info    devstack.Info
	proxy   *proxy                 // between every Kafka client and the broker
	redis   *supervisor.Supervisor // shared by the gateway replicas (nil without redis-server)
	admin   *client.Admin
	hc      *http.Client // trusts the local CA
	events  *eventLog
	log     io.Writer
	tmp     string // removed by stop unless kept
	cancel  context.CancelFunc
	done    chan error
	phoneMu sync.Mutex
	phones  int
}

// requestTimeout bounds every request of the load: a request without an
// answer by then counts as stuck.
const requestTimeout = 30 * time.Second

// startEnv starts the devstack in process mode on root (a fresh temporary
// directory when empty) with the broker behind a fault proxy, and waits for
// it.
func startEnv(ctx context.Context, root string, keep, verbose bool) (*env, error) {
	e := &env{log: io.Discard, done: make(chan error, 1)}
	if verbose {
		e.log = os.Stderr
	}
	if root == "" {
		dir, err := os.MkdirTemp("", "paylane-chaos-")
		if err != nil {
			return nil, err
		}
		if err := os.Chmod(dir, 0o755); err != nil { // the postgres OS user reaches pg/
			return nil, err
		}
		root = filepath.Join(dir, "root")
		if !keep {
			e.tmp = dir
		}
		fmt.Fprintf(os.Stderr, "chaos: stack root %s\n", root)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	p, err := newProxy()
	if err != nil {
		return nil, err
	}
	e.proxy = p
	redis, redisURL, err := startRedis(ctx)
	if err != nil {
		return nil, err
	}
	e.redis = redis
	replicas := 1
	if redis != nil {
		replicas = 2
	}
	svcLog, err := os.Create(filepath.Join(filepath.Dir(root), "services.log"))
	if err != nil {
		return nil, err
	}
	devLog := io.MultiWriter(e.log, mustCreate(filepath.Join(filepath.Dir(root), "devstack.log")))
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	e.cancel = cancel
	ready := make(chan devstack.Info, 1)
	go func() {
		e.done <- devstack.Run(runCtx, devstack.Options{
			Root: root, GatewayAddr: "127.0.0.1:0", AdminAddr: "127.0.0.1:0",
			Log: devLog, ServiceLog: svcLog, Processes: true,
			BrokerListen: p.listen, ServiceEnv: withRedis(serviceEnv(), redisURL), GatewayReplicas: replicas,
			Ready: func(i devstack.Info) { ready <- i },
		})
	}()
	fmt.Fprintln(os.Stderr, "chaos: building the binaries and starting the stack in process mode")
	select {
	case e.info = <-ready:
	case err := <-e.done:
		cancel()
		if e.redis != nil {
			e.redis.Stop()
		}
		e.cleanup()
		return nil, fmt.Errorf("devstack stopped while starting: %v", err)
	case <-ctx.Done():
		cancel()
		<-e.done
		if e.redis != nil {
			e.redis.Stop()
		}
		e.cleanup()
		return nil, ctx.Err()
	}
	if e.hc, err = caClient(e.info.CAFile); err != nil {
		e.stop()
		return nil, err
	}
	e.admin = client.NewAdmin(e.info.AdminURL, e.info.AdminToken, e.hc)
	e.events = startEventLog(e.info.Brokers)
	fmt.Fprintf(os.Stderr, "chaos: stack ready, gateway %s\n", e.info.GatewayURL)
	return e, nil
}

func mustCreate(path string) io.Writer {
	f, err := os.Create(path)
	if err != nil {
		return io.Discard
	}
	return f
}

func (e *env) stop() {
	if e.events != nil {
		e.events.close()
	}
	if e.hc != nil {
		e.hc.CloseIdleConnections()
	}
	e.cancel()
	if err := <-e.done; err != nil {
		fmt.Fprintf(os.Stderr, "chaos: devstack: %v\n", err)
	}
	e.proxy.close()
	if e.redis != nil {
		e.redis.Stop()
	}
	e.cleanup()
}

func (e *env) cleanup() {
	if e.tmp != "" {
		_ = os.RemoveAll(e.tmp)
	}
}

func (e *env) logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "chaos: "+format+"\n", args...)
}

// caClient is an HTTP client that trusts the devstack's CA.
func caClient(caFile string) (*http.Client, error) {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("reading the CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s holds no certificate", caFile)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	tr.MaxIdleConnsPerHost = 32
	tr.DialContext = (&net.Dialer{Timeout: 5 * time.Second}).DialContext
	return &http.Client{Timeout: requestTimeout, Transport: tr}, nil
}

// phone returns a new valid US number (national format), unique in this run.
func (e *env) phone() string {
	e.phoneMu.Lock()
	defer e.phoneMu.Unlock()
	n := e.phones
	e.phones++
	areas := []int{415, 212, 312, 617, 206, 303, 512, 702, 213, 305}
	return fmt.Sprintf("(%d) 555-%04d", areas[(n/10000)%len(areas)], n%10000)
}

// mint creates another all-abilities token of tenant.
func (e *env) mint(ctx context.Context, tenant string) (string, error) {
	tok, err := e.admin.CreateToken(ctx, tenant, client.TokenInput{Name: "chaos unused", Abilities: authz.All()})
	if err != nil {
		return "", fmt.Errorf("minting a token: %w", err)
	}
	return tok.Token, nil
}
