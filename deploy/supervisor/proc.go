package supervisor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// proc is one supervised program and its current process.
type proc struct {
	s    *Supervisor
	spec Spec
	out  *lineWriter
	hc   *http.Client

	mu       sync.Mutex
	cmd      *exec.Cmd
	exited   bool          // the current process has exited (and is reaped)
	done     chan struct{} // closed when the current process exits
	ready    chan struct{} // closed when the current process is ready
	began    time.Time
	restarts int
	// held keeps the process down after it exits until release is closed
	// (see Supervisor.Hold).
	held    bool
	release chan struct{}
}

func newProc(s *Supervisor, sp Spec) *proc {
	var w io.Writer = io.Discard
	if sp.Output != nil {
		w = sp.Output
	}
	return &proc{s: s, spec: sp, out: newLineWriter(w, &s.outMu), hc: &http.Client{Timeout: 2 * time.Second}}
}

// errStopping is spawn's answer once Stop was called.
var errStopping = errors.New("supervisor stopping")

// spawn starts a process and a watcher of its readiness. It holds mu while
// starting, so stop, which takes mu after Stop closed stopping, either sees
// the new process or keeps it from starting.
func (p *proc) spawn() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.s.stopping:
		return errStopping
	default:
	}
	cmd := command(p.spec, p.out)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", p.spec.Name, err)
	}
	done, ready := make(chan struct{}), make(chan struct{})
	p.cmd, p.exited, p.done, p.ready, p.began = cmd, false, done, ready, time.Now()
	p.s.logf("started %s (pid %d)", p.spec.Name, cmd.Process.Pid)
	go p.watchReady(done, ready)
	return nil
}

// watchReady closes ready once the process answers its ReadyURL, unless it
// exits first.
func (p *proc) watchReady(done <-chan struct{}, ready chan<- struct{}) {
	if p.spec.ReadyURL == "" {
		close(ready)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-done:
		case <-p.s.stopping:
		}
		cancel()
	}()
	for {
		if probe(ctx, p.hc, p.spec.ReadyURL) {
			close(ready)
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// loop waits for the current process and restarts it with backoff until the
// supervisor stops.
func (p *proc) loop() {
	defer p.s.wg.Done()
	backoff := p.s.opts.MinBackoff
	for {
		p.mu.Lock()
		cmd, done := p.cmd, p.done
		p.mu.Unlock()
		err := cmd.Wait()
		p.mu.Lock()
		p.exited = true
		ran := time.Since(p.began)
		p.mu.Unlock()
		close(done)
		p.out.Flush()
		select {
		case <-p.s.stopping:
			p.s.logf("%s (pid %d) stopped: %s", p.spec.Name, cmd.Process.Pid, exitText(err))
			return
		default:
		}
		if ran >= p.s.opts.ResetAfter {
			backoff = p.s.opts.MinBackoff
		}
		p.mu.Lock()
		held, release := p.held, p.release
		p.mu.Unlock()
		if held {
			p.s.logf("%s (pid %d) exited: %s; held down until released", p.spec.Name, cmd.Process.Pid, exitText(err))
			select {
			case <-release:
			case <-p.s.stopping:
				return
			}
			if !p.restartAfter(0) {
				return
			}
			backoff = p.s.opts.MinBackoff
			continue
		}
		p.s.logf("%s (pid %d) exited after %s: %s; restarting in %s", p.spec.Name, cmd.Process.Pid,
			ran.Round(time.Millisecond), exitText(err), backoff)
		if !p.restartAfter(backoff) {
			return
		}
		backoff = min(2*backoff, p.s.opts.MaxBackoff)
	}
}

// restartAfter waits d and starts the process again, retrying a failed start
// with the same wait; false when the supervisor stops meanwhile.
func (p *proc) restartAfter(d time.Duration) bool {
	for {
		select {
		case <-p.s.stopping:
			return false
		case <-time.After(d):
		}
		err := p.spawn()
		if errors.Is(err, errStopping) {
			return false
		}
		if err != nil {
			p.s.logf("%v; retrying in %s", err, d)
			continue
		}
		p.mu.Lock()
		p.restarts++
		p.mu.Unlock()
		return true
	}
}

// waitReady blocks until the current process is ready; a process that exits
// before it is ready is waited for through its restart.
func (p *proc) waitReady(ctx context.Context) error {
	for {
		p.mu.Lock()
		done, ready := p.done, p.ready
		p.mu.Unlock()
		select {
		case <-ready:
			return nil
		case <-done:
			// Exited before ready: wait for the next process.
			select {
			case <-p.s.stopping:
				return errors.New("supervisor stopped")
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(20 * time.Millisecond):
			}
		case <-p.s.stopping:
			return errors.New("supervisor stopped")
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// stop sends SIGTERM to the current process, SIGKILL after StopTimeout, and
// waits for it to exit.
func (p *proc) stop() {
	p.mu.Lock()
	cmd, done, exited := p.cmd, p.done, p.exited
	p.mu.Unlock()
	if cmd == nil || exited {
		return
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); !isDone(err) {
		p.s.logf("stopping %s: %v", p.spec.Name, err)
	}
	select {
	case <-done:
	case <-time.After(p.s.opts.StopTimeout):
		p.s.logf("%s did not stop within %s; killing it", p.spec.Name, p.s.opts.StopTimeout)
		_ = cmd.Process.Kill()
		<-done
	}
}

// exitText describes how a process ended.
func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}
