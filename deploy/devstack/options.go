package devstack

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"

	"github.com/paylane/paylane/deploy/supervisor"
	"github.com/paylane/paylane/libs/pgcluster"
)

// Options configure a devstack run.
type Options struct {
	// Root holds everything the stack keeps: pg (the Postgres cluster), tls,
	// secrets.json and devstack.json. Default: <repo>/.paylane.
	Root string
	// GatewayAddr is the gateway's public HTTPS listener. Default ":8443".
	GatewayAddr string
	// AdminAddr is the gateway's admin listener. Default "127.0.0.1:8444".
	AdminAddr string
	// Log receives the devstack's progress and the banner. Default os.Stdout.
	Log io.Writer
	// ServiceLog receives the services' JSON logs. Default: Log.
	ServiceLog io.Writer
	// LogLevel is the level of the services' and the gateway's logs
	// (zero: info, which includes one access line per request in each
	// process; warn keeps only those of 5xx answers).
	LogLevel slog.Level
	// Ready, when set, is called once everything is up and devstack.json is
	// written.
	Ready func(Info)
	// Processes runs every service and the gateway as a process of its own
	// (its cmd binary, configured by environment variables as in production)
	// under a supervisor that restarts one that exits; Postgres and the
	// broker stay in this process. Default: everything in this process.
	Processes bool
	// BinDir receives the binaries of the process mode. Default Root/bin.
	BinDir string
	// ServiceEnv adds variables to (or overrides those of) a process's
	// environment in process mode, by process name: the binary's
	// (contacts-svc, ...) or "gateway".
	ServiceEnv map[string][]string
	// BrokerListen, when set, opens the broker's listener instead of
	// net.Listen: the address its listener reports is the one the broker
	// advertises, so every client (services, gateway, this process) reaches
	// the broker through it (a fault-injecting proxy, for instance).
	BrokerListen func(network, addr string) (net.Listener, error)
	// GatewayReplicas is the number of gateway processes in process mode
	// (default 1); each further one ("gateway-2", ...) has listeners of its
	// own and the same configuration (ServiceEnv["gateway"] included, e.g.
	// a shared REDIS_URL).
	GatewayReplicas int
}

// Info describes a running stack: the devstack.json content plus the bound
// addresses.
type Info struct {
	File
	// Root is the absolute state directory.
	Root string
	// GatewayAddr and AdminAddr are the bound gateway listeners.
	GatewayAddr, AdminAddr string
	// Services maps each service name to its bound HTTP address.
	Services map[string]string
	// Brokers are the Kafka-protocol broker addresses.
	Brokers []string
	// PostgresPort is the cluster's TCP port on 127.0.0.1.
	PostgresPort int
	// GatewayURLs are the public URLs of every gateway replica, GatewayURL
	// first.
	GatewayURLs []string
	// Postgres is the running cluster (Restart, for fault tests).
	Postgres *pgcluster.Cluster
	// Processes supervises the services and the gateway in process mode
	// (nil in process): their PIDs, Kill, restarts.
	Processes *supervisor.Supervisor
	// InternalAddrs are the internal listeners (/healthz, /readyz,
	// /metrics) of every process by its name (contacts-svc, gateway), in
	// process mode; nil in process.
	InternalAddrs map[string]string
}

// paths are the files under Root.
type paths struct {
	root, pg, tls, secrets, state string
}

func (o Options) withDefaults() (Options, error) {
	if o.Root == "" {
		r, err := DefaultRoot()
		if err != nil {
			return o, err
		}
		o.Root = r
	}
	abs, err := filepath.Abs(o.Root)
	if err != nil {
		return o, fmt.Errorf("resolving root: %w", err)
	}
	o.Root = abs
	if o.GatewayAddr == "" {
		o.GatewayAddr = ":8443"
	}
	if o.AdminAddr == "" {
		o.AdminAddr = "127.0.0.1:8444"
	}
	if o.Log == nil {
		o.Log = os.Stdout
	}
	if o.ServiceLog == nil {
		o.ServiceLog = o.Log
	}
	return o, nil
}

func (o Options) paths() paths {
	return paths{
		root:    o.Root,
		pg:      filepath.Join(o.Root, "pg"),
		tls:     filepath.Join(o.Root, "tls"),
		secrets: filepath.Join(o.Root, "secrets.json"),
		state:   filepath.Join(o.Root, "devstack.json"),
	}
}

// prepareRoot creates Root with mode 0755: the postgres OS user must be able
// to reach Root/pg. The secrets inside are 0600 files.
func prepareRoot(root string) error {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", root, err)
	}
	if err := os.Chmod(root, 0o755); err != nil {
		return fmt.Errorf("chmod %s: %w", root, err)
	}
	return nil
}
