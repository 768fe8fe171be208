package devstack

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// stopStaleCluster handles a data directory whose postmaster.pid survived a
// crash of a previous devstack. When the process it names is still a
// postgres serving that directory, it is shut down the way pg_ctl stop -m
// fast does (SIGINT to the postmaster, then wait for it to exit; SIGQUIT as
// a last resort). When the process is gone or the pid now belongs to
// something else, the stale file is removed so postgres does not refuse to
// start.
func stopStaleCluster(ctx context.Context, dataDir string, log io.Writer) error {
	pidFile := filepath.Join(dataDir, "postmaster.pid")
	pid, ownerDir, err := readPostmasterPID(pidFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !isPostgres(pid, ownerDir, dataDir) {
		fmt.Fprintf(log, "devstack: removing stale %s (pid %d is not running postgres)\n", pidFile, pid)
		if err := os.Remove(pidFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing stale postmaster.pid: %w", err)
		}
		return nil
	}
	fmt.Fprintf(log, "devstack: a postgres (pid %d) from an earlier run still serves %s; stopping it\n", pid, dataDir)
	for _, step := range []struct {
		sig  syscall.Signal
		wait time.Duration
	}{{syscall.SIGINT, 60 * time.Second}, {syscall.SIGQUIT, 10 * time.Second}} {
		if err := syscall.Kill(pid, step.sig); err != nil {
			if errors.Is(err, syscall.ESRCH) {
				return nil
			}
			return fmt.Errorf("stopping stale postgres (pid %d): %w", pid, err)
		}
		if waitExit(ctx, pid, step.wait) {
			return nil
		}
	}
	return fmt.Errorf("stale postgres (pid %d) on %s did not stop", pid, dataDir)
}

// readPostmasterPID returns the pid (line 1) and data directory (line 2) of
// a postmaster.pid file.
func readPostmasterPID(path string) (int, string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, "", fmt.Errorf("reading postmaster.pid: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	var lines []string
	for sc.Scan() && len(lines) < 2 {
		lines = append(lines, strings.TrimSpace(sc.Text()))
	}
	if len(lines) == 0 {
		return 0, "", nil
	}
	pid, err := strconv.Atoi(lines[0])
	if err != nil || pid <= 0 {
		return 0, "", nil
	}
	if len(lines) < 2 {
		return pid, "", nil
	}
	return pid, lines[1], nil
}

// isPostgres reports whether pid is alive and runs a postgres binary for
// dataDir (as far as the pid file and /proc tell).
func isPostgres(pid int, ownerDir, dataDir string) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	if ownerDir != "" && !sameDir(ownerDir, dataDir) {
		return false
	}
	cmdline, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil {
		return false
	}
	argv0, _, _ := bytes.Cut(cmdline, []byte{0})
	return strings.Contains(filepath.Base(string(argv0)), "postgres") ||
		strings.HasPrefix(string(argv0), "postgres:")
}

func sameDir(a, b string) bool {
	ia, errA := os.Stat(a)
	ib, errB := os.Stat(b)
	if errA != nil || errB != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return os.SameFile(ia, ib)
}

// waitExit polls until pid is gone, the timeout passes or ctx is done.
func waitExit(ctx context.Context, pid int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(100 * time.Millisecond):
		}
	}
	return false
}
