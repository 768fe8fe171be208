// Package pgcluster runs a local Postgres cluster from the machine's server
// binaries: throwaway clusters for tests (testkit) and the persistent cluster of
// the local stack (devstack). Production never uses it.
//
// When the process is root the server runs as the postgres OS user, because
// initdb and postgres refuse to run as root; the data directory is handed to
// that user. The server listens on 127.0.0.1:Port and on a unix socket in
// SocketDir.
package pgcluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
)

// Superuser is the name of the cluster's superuser role.
const Superuser = "postgres"

// Options configure Start.
type Options struct {
	// Dir is the data directory. It is created and initialised with initdb when it
	// does not exist or is empty; an existing cluster in it is started as it is.
	// Empty means a fresh temporary directory that Stop removes.
	Dir string
	// Port is the TCP port on 127.0.0.1; 0 picks a free one.
	Port int
	// BinDir holds initdb and postgres; empty means DefaultBinDir, then
	// `pg_config --bindir`, then the newest /usr/lib/postgresql/*/bin.
	BinDir string
	// Log receives the output of initdb and the server; nil discards it (the last
	// lines still appear in errors from Start).
	Log io.Writer
	// Ephemeral trades durability for speed, for test clusters: initdb --no-sync,
	// the server with fsync, synchronous_commit and full_page_writes off, and
	// trust authentication (any local client may connect as any role).
	// Otherwise the cluster uses scram-sha-256 with a generated superuser password,
	// stored in the file PasswordFile(Dir) beside the data directory.
	Ephemeral bool
	// MaxConnections is the server's max_connections; 0 means 200.
	MaxConnections int
}

// Cluster is a running Postgres server started by Start.
type Cluster struct {
	// Dir is the data directory.
	Dir string
	// SocketDir holds the server's unix socket (the data directory when its path is
	// short enough for a socket address).
	SocketDir string
	// Port is the TCP port on 127.0.0.1.
	Port int

	bin      string
	as       runAs
	log      io.Writer
	out      *tailBuffer
	password string   // superuser password; empty under trust authentication
	secret   []byte   // derives role passwords (see RolePassword)
	temps    []string // directories Stop removes
	opts     Options  // what Start was given, for Restart
	proc     *exec.Cmd
	done     chan struct{} // closed when the server process has exited
	waitErr  error

	stopOnce sync.Once
	stopErr  error
}

// PasswordFile is where a non-ephemeral cluster in dataDir keeps its superuser
// password: beside the data directory, since initdb needs an empty one.
func PasswordFile(dataDir string) string {
	clean := filepath.Clean(dataDir)
	return filepath.Join(filepath.Dir(clean), filepath.Base(clean)+".superuser-password")
}

// Start initialises the data directory when needed, starts the server and
// returns once it accepts connections.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	bin, err := FindBinDir(ctx, opts.BinDir)
	if err != nil {
		return nil, err
	}
	as, err := lookupRunAs()
	if err != nil {
		return nil, err
	}
	c := &Cluster{bin: bin, as: as, log: opts.Log, out: newTailBuffer(16 << 10)}
	if err := c.start(ctx, opts); err != nil {
		c.removeTemps()
		return nil, fmt.Errorf("starting postgres in %s: %w", c.Dir, err)
	}
	return c, nil
}

func (c *Cluster) start(ctx context.Context, opts Options) error {
	c.opts = opts
	if err := c.prepareDirs(opts.Dir); err != nil {
		return err
	}
	if err := c.initdb(ctx, opts.Ephemeral); err != nil {
		return err
	}
	if c.secret == nil {
		c.secret = []byte(c.password)
		if c.password == "" {
			c.secret = []byte(randomHex(32))
		}
	}
	return c.launchRetrying(ctx, opts)
}

// Stop shuts the server down the way `pg_ctl stop -m fast` does (SIGINT to the
// postmaster: sessions are ended, the cluster is checkpointed), waits for it to
// exit and removes the temporary directories Start created. It is safe to call
// more than once.
func (c *Cluster) Stop() error {
	c.stopOnce.Do(func() {
		c.stopErr = c.shutdown()
		c.removeTemps()
	})
	return c.stopErr
}

// Restart stops the server the way `pg_ctl restart -m fast` does (sessions
// are ended, the cluster is checkpointed) and starts it again on the same
// port, returning once it accepts connections: clients see their
// connections end and can reconnect to the same address. It must not run
// concurrently with Stop or another Restart.
func (c *Cluster) Restart(ctx context.Context) error {
	if err := c.shutdown(); err != nil {
		return fmt.Errorf("restarting postgres: %w", err)
	}
	if err := c.launch(ctx, c.Port, c.opts); err != nil {
		return fmt.Errorf("restarting postgres: %w", err)
	}
	return nil
}

// SuperuserDSN returns a DSN for database db as the superuser over TCP.
func (c *Cluster) SuperuserDSN(db string) string {
	return c.DSN(Superuser, c.password, db)
}

// DSN returns a postgres:// URL for user (with password when not empty) and
// database db over TCP on 127.0.0.1.
func (c *Cluster) DSN(user, password, db string) string {
	u := url.URL{
		Scheme:   "postgres",
		User:     url.User(user),
		Host:     "127.0.0.1:" + strconv.Itoa(c.Port),
		Path:     "/" + db,
		RawQuery: "sslmode=disable",
	}
	if password != "" {
		u.User = url.UserPassword(user, password)
	}
	return u.String()
}

// Exited is closed when the server process has exited (after Stop, or when it died).
func (c *Cluster) Exited() <-chan struct{} { return c.done }

func (c *Cluster) removeTemps() {
	for _, d := range c.temps {
		_ = os.RemoveAll(d)
	}
	c.temps = nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Errorf("crypto/rand: %w", err)) // rand.Read never fails on Linux
	}
	return hex.EncodeToString(b)
}

// errPortInUse marks a start that failed because the TCP port was taken.
var errPortInUse = errors.New("port in use")
