package supervisor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as the supervised program: with SUPERVISOR_HELPER
// set it runs the helper instead of the tests.
func TestMain(m *testing.M) {
	switch os.Getenv("SUPERVISOR_HELPER") {
	case "exit":
		fmt.Println("helper exiting")
		os.Exit(3)
	case "serve":
		serveHelper()
		return
	}
	os.Exit(m.Run())
}

// serveHelper answers /readyz on HELPER_ADDR and /env with its environment,
// until SIGTERM.
func serveHelper() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	mux := http.NewServeMux()
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {})
	mux.HandleFunc("/env", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, strings.Join(os.Environ(), "\n"))
	})
	ln, err := net.Listen("tcp", os.Getenv("HELPER_ADDR"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	srv := &http.Server{Handler: mux}
	go func() { _ = srv.Serve(ln) }()
	fmt.Printf("helper %d serving\n", os.Getpid())
	<-ctx.Done()
	_ = srv.Close()
	fmt.Println("helper stopped")
}

// logBuffer is a writer safe for the supervisor's concurrent writes.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func self(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

func serveSpec(t *testing.T, name string, out *logBuffer) Spec {
	addr := freeAddr(t)
	return Spec{
		Name: name, Path: self(t), Env: []string{"SUPERVISOR_HELPER=serve", "HELPER_ADDR=" + addr, "ONLY_THIS=1"},
		ReadyURL: "http://" + addr + "/readyz", Output: out,
	}
}

// waitFor polls cond every 20 ms for up to 30 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func alive(pid int) bool {
	return syscall.Kill(pid, 0) == nil
}

func TestExitingProcessIsRestartedWithDoublingBackoff(t *testing.T) {
	t.Parallel()
	var log, out logBuffer
	s, err := New(Options{Log: &log, MinBackoff: 10 * time.Millisecond, MaxBackoff: 40 * time.Millisecond},
		Spec{Name: "quitter", Path: self(t), Env: []string{"SUPERVISOR_HELPER=exit"}, Output: &out})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "four restarts", func() bool { return s.Restarts("quitter") >= 4 })
	s.Stop()
	var waits []string
	for _, m := range regexp.MustCompile(`quitter \(pid \d+\) exited after \S+: exit status 3; restarting in (\S+)`).FindAllStringSubmatch(log.String(), -1) {
		waits = append(waits, m[1])
	}
	if len(waits) < 4 {
		t.Fatalf("logged restarts %q, want at least 4; log:\n%s", waits, log.String())
	}
	want := []string{"10ms", "20ms", "40ms", "40ms"}
	for i, w := range want {
		if waits[i] != w {
			t.Errorf("restart %d waited %s, want %s (all: %q)", i+1, waits[i], w, waits)
		}
	}
	if !strings.Contains(out.String(), "helper exiting\n") {
		t.Errorf("process output not passed on: %q", out.String())
	}
}

func TestKilledProcessComesBackAndStopLeavesNoProcess(t *testing.T) {
	t.Parallel()
	var log, out logBuffer
	a, b := serveSpec(t, "a", &out), serveSpec(t, "b", &out)
	s, err := New(Options{Log: &log, MinBackoff: 10 * time.Millisecond}, a, b)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	pids := map[int]bool{}
	first := s.PID("a")
	if first == 0 || s.PID("b") == 0 {
		t.Fatalf("PIDs after Start: a %d, b %d", first, s.PID("b"))
	}
	pids[first], pids[s.PID("b")] = true, true

	if err := s.Kill("a", syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a restarted", func() bool { p := s.PID("a"); return p != 0 && p != first })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.WaitReady(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if alive(first) {
		t.Errorf("killed process %d still alive", first)
	}
	if got := s.Restarts("a"); got != 1 {
		t.Errorf("Restarts(a) = %d, want 1", got)
	}
	if got := s.Restarts("b"); got != 0 {
		t.Errorf("Restarts(b) = %d, want 0", got)
	}
	pids[s.PID("a")] = true
	resp, err := http.Get(strings.TrimSuffix(a.ReadyURL, "/readyz") + "/env")
	if err != nil {
		t.Fatalf("restarted process does not serve: %v", err)
	}
	var env bytes.Buffer
	_, _ = env.ReadFrom(resp.Body)
	resp.Body.Close()
	if got := strings.Fields(env.String()); strings.Join(got, " ") != strings.Join(a.Env, " ") {
		t.Errorf("restarted process's environment = %q, want exactly %q", got, a.Env)
	}

	s.Stop()
	for pid := range pids {
		if alive(pid) {
			t.Errorf("process %d alive after Stop", pid)
		}
	}
	if s.PID("a") != 0 || s.PID("b") != 0 {
		t.Errorf("PIDs after Stop: a %d, b %d; want 0", s.PID("a"), s.PID("b"))
	}
	if err := s.Kill("a", syscall.SIGTERM); err == nil {
		t.Error("Kill after Stop succeeded")
	}
	if strings.Count(out.String(), "helper stopped\n") != 2 {
		t.Errorf("want both processes stopped gracefully (SIGTERM); output:\n%s", out.String())
	}
	if s.Restarts("a") != 1 || s.Restarts("b") != 0 {
		t.Errorf("restarts after Stop: a %d, b %d; want 1 and 0 (no restart on Stop)", s.Restarts("a"), s.Restarts("b"))
	}
}

func TestStopDuringBackoffStartsNothing(t *testing.T) {
	t.Parallel()
	var log logBuffer
	s, err := New(Options{Log: &log, MinBackoff: time.Hour},
		Spec{Name: "quitter", Path: self(t), Env: []string{"SUPERVISOR_HELPER=exit"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the exit", func() bool { return strings.Contains(log.String(), "restarting in 1h0m0s") })
	s.Stop() // returns although the restart waits an hour
	if got := s.Restarts("quitter"); got != 0 {
		t.Errorf("Restarts = %d, want 0", got)
	}
}

func TestStartFailsWhenAProcessNeverGetsReady(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t) // nothing listens there
	s, err := New(Options{ReadyTimeout: 300 * time.Millisecond, MinBackoff: 10 * time.Millisecond},
		Spec{Name: "quitter", Path: self(t), Env: []string{"SUPERVISOR_HELPER=exit"}, ReadyURL: "http://" + addr + "/readyz"})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Start(context.Background())
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Start = %v, want a readiness deadline error", err)
	}
}

func TestNewRejectsDuplicateNames(t *testing.T) {
	t.Parallel()
	if _, err := New(Options{}, Spec{Name: "a", Path: "/bin/true"}, Spec{Name: "a", Path: "/bin/true"}); err == nil {
		t.Error("New accepted two specs named a")
	}
}

func TestHeldProcessStaysDownUntilReleased(t *testing.T) {
	t.Parallel()
	var log, out logBuffer
	a := serveSpec(t, "a", &out)
	s, err := New(Options{Log: &log, MinBackoff: 10 * time.Millisecond}, a)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	first := s.PID("a")
	if err := s.Hold("a"); err != nil {
		t.Fatal(err)
	}
	if alive(first) {
		t.Errorf("held process %d still alive", first)
	}
	// Several backoffs pass without a restart.
	time.Sleep(200 * time.Millisecond)
	if pid := s.PID("a"); pid != 0 {
		t.Fatalf("PID(a) = %d while held, want 0", pid)
	}
	if _, err := http.Get(a.ReadyURL); err == nil {
		t.Error("a held process still answers")
	}
	if err := s.Release("a"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	waitFor(t, "a restarted", func() bool { p := s.PID("a"); return p != 0 && p != first })
	if err := s.WaitReady(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if err := s.Release("a"); err == nil {
		t.Error("Release of a process not held succeeded")
	}
}
