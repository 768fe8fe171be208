// Package supervisor runs programs as child processes and keeps them running:
// it starts them in order (each one ready before the next starts), restarts
// one that exits with a doubling backoff, signals one on request and stops
// them all. The devstack's process mode, the benchmark and the fault
// scenarios run the service binaries through it, each configured only by the
// environment its Spec names, as in production.
package supervisor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Spec is one program the supervisor runs.
type Spec struct {
	// Name names the process in logs and in PID, Kill and WaitReady.
	Name string
	// Path is the executable; Args its arguments.
	Path string
	Args []string
	// Env is the process's whole environment (nothing is inherited).
	Env []string
	// ReadyURL, when set, is polled (GET, 200 means ready) after each start;
	// empty means a started process is ready.
	ReadyURL string
	// Output receives the process's stdout and stderr, whole lines at a
	// time; nil discards them.
	Output io.Writer
}

// Options configure a Supervisor.
type Options struct {
	// Log receives one line per start, exit, restart and stop. Nil discards.
	Log io.Writer
	// MinBackoff is the wait before the first restart (default 200 ms); it
	// doubles on each restart up to MaxBackoff (default 10 s) and falls back
	// to MinBackoff once a process has run for ResetAfter (default 30 s).
	MinBackoff, MaxBackoff, ResetAfter time.Duration
	// StopTimeout is how long Stop waits after SIGTERM before SIGKILL
	// (default 15 s).
	StopTimeout time.Duration
	// ReadyTimeout bounds Start's wait for each process (default 60 s).
	ReadyTimeout time.Duration
}

func (o Options) withDefaults() Options {
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = 200 * time.Millisecond
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 10 * time.Second
	}
	if o.ResetAfter <= 0 {
		o.ResetAfter = 30 * time.Second
	}
	if o.StopTimeout <= 0 {
		o.StopTimeout = 15 * time.Second
	}
	if o.ReadyTimeout <= 0 {
		o.ReadyTimeout = 60 * time.Second
	}
	return o
}

// Supervisor runs a fixed set of processes. Its methods are safe for
// concurrent use.
type Supervisor struct {
	opts   Options
	procs  []*proc
	byName map[string]*proc
	logMu  sync.Mutex
	outMu  sync.Mutex // around every process's output writes

	stopOnce sync.Once
	stopping chan struct{}
	wg       sync.WaitGroup
}

// New returns a supervisor of specs (names must be unique); nothing starts
// before Start.
func New(opts Options, specs ...Spec) (*Supervisor, error) {
	s := &Supervisor{opts: opts.withDefaults(), byName: map[string]*proc{}, stopping: make(chan struct{})}
	for _, sp := range specs {
		if sp.Name == "" || sp.Path == "" {
			return nil, errors.New("supervisor: a spec needs a name and a path")
		}
		if _, dup := s.byName[sp.Name]; dup {
			return nil, fmt.Errorf("supervisor: two specs named %q", sp.Name)
		}
		p := newProc(s, sp)
		s.procs = append(s.procs, p)
		s.byName[sp.Name] = p
	}
	return s, nil
}

// Start starts the processes in order, each one ready before the next
// starts, and keeps them running until Stop. On an error it stops those
// already started.
func (s *Supervisor) Start(ctx context.Context) error {
	for _, p := range s.procs {
		if err := p.spawn(); err != nil {
			s.Stop()
			return err
		}
		s.wg.Add(1)
		go p.loop()
		rctx, cancel := context.WithTimeout(ctx, s.opts.ReadyTimeout)
		err := p.waitReady(rctx)
		cancel()
		if err != nil {
			s.Stop()
			return fmt.Errorf("%s not ready: %w", p.spec.Name, err)
		}
	}
	return nil
}

// Names are the supervised processes' names, in start order.
func (s *Supervisor) Names() []string {
	out := make([]string, len(s.procs))
	for i, p := range s.procs {
		out[i] = p.spec.Name
	}
	return out
}

// PID is the process id of name's current process, 0 while it is not
// running (between an exit and its restart) or when name is unknown.
func (s *Supervisor) PID(name string) int {
	p := s.byName[name]
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil || p.exited {
		return 0
	}
	return p.cmd.Process.Pid
}

// Restarts is how many times name was restarted after an exit.
func (s *Supervisor) Restarts(name string) int {
	p := s.byName[name]
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.restarts
}

// Kill sends sig to name's current process; the supervisor restarts it
// when it exits.
func (s *Supervisor) Kill(name string, sig syscall.Signal) error {
	p := s.byName[name]
	if p == nil {
		return fmt.Errorf("supervisor: no process named %q", name)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil || p.exited {
		return fmt.Errorf("supervisor: %s is not running", name)
	}
	s.logf("sending %v to %s (pid %d)", sig, name, p.cmd.Process.Pid)
	return p.cmd.Process.Signal(sig)
}

// Hold kills name's process with SIGKILL and keeps it down (no restart)
// until Release; the outage of a service, for fault tests.
func (s *Supervisor) Hold(name string) error {
	p := s.byName[name]
	if p == nil {
		return fmt.Errorf("supervisor: no process named %q", name)
	}
	p.mu.Lock()
	if p.held {
		p.mu.Unlock()
		return fmt.Errorf("supervisor: %s is held already", name)
	}
	p.held, p.release = true, make(chan struct{})
	cmd, done, exited := p.cmd, p.done, p.exited
	p.mu.Unlock()
	s.logf("holding %s down", name)
	if !exited {
		if err := cmd.Process.Kill(); !isDone(err) {
			return fmt.Errorf("supervisor: killing %s: %w", name, err)
		}
	}
	<-done
	return nil
}

// Release starts a process held down by Hold again.
func (s *Supervisor) Release(name string) error {
	p := s.byName[name]
	if p == nil {
		return fmt.Errorf("supervisor: no process named %q", name)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.held {
		return fmt.Errorf("supervisor: %s is not held", name)
	}
	p.held = false
	close(p.release)
	s.logf("releasing %s", name)
	return nil
}

// WaitReady blocks until name's current process is ready (see
// Spec.ReadyURL) or ctx is done.
func (s *Supervisor) WaitReady(ctx context.Context, name string) error {
	p := s.byName[name]
	if p == nil {
		return fmt.Errorf("supervisor: no process named %q", name)
	}
	return p.waitReady(ctx)
}

// Stop stops every process, the last started first: SIGTERM, then SIGKILL
// after StopTimeout. No process is restarted once Stop is called. It
// returns when every process has exited; it is safe to call more than once.
func (s *Supervisor) Stop() {
	s.stopOnce.Do(func() {
		close(s.stopping)
		for i := len(s.procs) - 1; i >= 0; i-- {
			s.procs[i].stop()
		}
		s.wg.Wait()
	})
}

func (s *Supervisor) logf(format string, args ...any) {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	fmt.Fprintf(s.opts.Log, "supervisor: "+format+"\n", args...)
}

// probe reports whether url answers 200.
func probe(ctx context.Context, hc *http.Client, url string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	resp, err := hc.Do(req)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// isDone reports whether err means the process is already gone.
func isDone(err error) bool { return err == nil || errors.Is(err, os.ErrProcessDone) }

// command prepares one run of sp: its own process group (a terminal's
// Ctrl-C reaches the supervisor, which stops the processes in order) and a
// parent-death signal (a supervisor killed without Stop leaves no orphan).
func command(sp Spec, out io.Writer) *exec.Cmd {
	cmd := exec.Command(sp.Path, sp.Args...)
	cmd.Env = append([]string{}, sp.Env...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	return cmd
}
