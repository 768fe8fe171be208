package pgcluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

const (
	readyTimeout    = 60 * time.Second
	shutdownTimeout = 60 * time.Second
)

// command prepares a server binary run as the server's user, in its own process
// group (a terminal's Ctrl-C reaches the caller, which then calls Stop), with
// output to Options.Log and the tail buffer.
func (c *Cluster) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(c.bin, name), args...)
	cmd.Dir = "/"
	cmd.Env = serverEnv()
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.as.cred, Setpgid: true}
	var w io.Writer = c.out
	if c.log != nil {
		w = io.MultiWriter(c.log, c.out)
	}
	cmd.Stdout, cmd.Stderr = w, w
	return cmd
}

// serverEnv is our environment without PG* variables, which would redirect the tools.
func serverEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PG") {
			env = append(env, kv)
		}
	}
	return env
}

// launchRetrying starts the server, retrying with another free port when a
// picked one was taken in the meantime.
func (c *Cluster) launchRetrying(ctx context.Context, opts Options) error {
	for attempt := 1; ; attempt++ {
		port := opts.Port
		if port == 0 {
			p, err := freePort()
			if err != nil {
				return err
			}
			port = p
		}
		err := c.launch(ctx, port, opts)
		if err == nil || opts.Port != 0 || attempt == 3 || !errors.Is(err, errPortInUse) {
			return err
		}
	}
}

func (c *Cluster) launch(ctx context.Context, port int, opts Options) error {
	maxConns := opts.MaxConnections
	if maxConns == 0 {
		maxConns = 200
	}
	args := []string{"-D", c.Dir, "-p", strconv.Itoa(port), "-h", "127.0.0.1", "-k", c.SocketDir,
		"-c", "max_connections=" + strconv.Itoa(maxConns)}
	if opts.Ephemeral {
		args = append(args, "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	}
	c.out.Reset()
	cmd := c.command(context.Background(), "postgres", args...)
	// A caller that dies without Stop (a killed test binary or devstack) takes
	// its server along: SIGQUIT is an immediate shutdown, which the next start
	// recovers from through the WAL.
	cmd.SysProcAttr.Pdeathsig = syscall.SIGQUIT
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	c.proc, c.done, c.Port = cmd, make(chan struct{}), port
	go func() {
		c.waitErr = cmd.Wait()
		close(c.done)
	}()
	return c.waitReady(ctx)
}

// waitReady polls postmaster.pid until the server reports "ready", as pg_ctl -w does.
func (c *Cluster) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	pid := strconv.Itoa(c.proc.Process.Pid)
	for {
		select {
		case <-c.done:
			out := c.out.String()
			err := fmt.Errorf("postgres exited (%v): %s", c.waitErr, out)
			if strings.Contains(out, "could not bind") || strings.Contains(out, "already in use") {
				err = fmt.Errorf("%w: %w", errPortInUse, err)
			}
			return err
		case <-ctx.Done():
			_ = c.shutdown()
			return fmt.Errorf("waiting for postgres to accept connections: %w: %s", ctx.Err(), c.out.String())
		case <-tick.C:
			if pidFileReady(filepath.Join(c.Dir, "postmaster.pid"), pid) {
				return nil
			}
		}
	}
}

// pidFileReady reports whether postmaster.pid names pid with status "ready"
// (line 8, written once the server accepts connections).
func pidFileReady(path, pid string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	lines := strings.Split(string(b), "\n")
	return len(lines) >= 8 && lines[0] == pid && strings.TrimSpace(lines[7]) == "ready"
}

// shutdown asks for a fast shutdown and escalates to an immediate one when the
// server does not exit in time.
func (c *Cluster) shutdown() error {
	if c.proc == nil {
		return nil
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGQUIT, syscall.SIGKILL} {
		select {
		case <-c.done:
			return nil
		default:
		}
		if err := c.proc.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
			return fmt.Errorf("signalling postgres: %w", err)
		}
		select {
		case <-c.done:
			return nil
		case <-time.After(shutdownTimeout):
		}
	}
	return errors.New("postgres did not exit")
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("picking a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// tailBuffer keeps the last bytes written to it, for error messages.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf bytes.Buffer
}

func newTailBuffer(max int) *tailBuffer { return &tailBuffer{max: max} }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.Write(p)
	if extra := t.buf.Len() - t.max; extra > 0 {
		t.buf.Next(extra)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(t.buf.String())
}

func (t *tailBuffer) Reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.Reset()
}
