package footprint

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// Build compiles packages (import paths) into dir with `go build -o dir`,
// from workdir (the workspace root).
func Build(ctx context.Context, workdir, dir string, packages ...string) error {
	args := append([]string{"build", "-o", dir + string(os.PathSeparator)}, packages...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = workdir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("go build: %w\n%s", err, out)
	}
	return nil
}

// FreeAddr returns a 127.0.0.1 address with a port nothing listens on now.
func FreeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("finding a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// Proc is a service binary running as its own process.
type Proc struct {
	Name string
	// Internal is its internal listener (/readyz, /debug/pprof).
	Internal string
	cmd      *exec.Cmd
	done     chan error
}

// Launch starts bin with env (added to this process's environment) and
// waits until http://internal/readyz answers 200.
func Launch(ctx context.Context, name, bin string, env []string, internal string, log io.Writer) (*Proc, error) {
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), env...)
	// The service stops with the harness, even when the harness is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &Proc{Name: name, Internal: internal, cmd: cmd, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait() }()
	if err := p.waitReady(ctx, 60*time.Second); err != nil {
		_ = p.Stop()
		return nil, err
	}
	return p, nil
}

func (p *Proc) waitReady(ctx context.Context, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	url := "http://" + p.Internal + "/readyz"
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return fmt.Errorf("probing %s: %w", p.Name, err)
		}
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case err := <-p.done:
			p.done <- err
			return fmt.Errorf("%s exited while starting: %v", p.Name, err)
		case <-ctx.Done():
			return fmt.Errorf("%s not ready: %w", p.Name, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// RSS is the process's resident set size in bytes.
func (p *Proc) RSS() (int64, error) { return RSS(p.cmd.Process.Pid) }

// Stop sends SIGTERM, waits up to 15 s for the graceful shutdown, then
// kills the process.
func (p *Proc) Stop() error {
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("stopping %s: %w", p.Name, err)
	}
	select {
	case err := <-p.done:
		p.done <- err
		return nil
	case <-time.After(15 * time.Second):
		_ = p.cmd.Process.Kill()
		p.done <- <-p.done
		return fmt.Errorf("%s did not stop within 15 s; killed", p.Name)
	}
}

// PID is the process id.
func (p *Proc) PID() int { return p.cmd.Process.Pid }
