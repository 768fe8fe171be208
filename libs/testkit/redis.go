package testkit

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// redisServerBin is where Debian's redis-server package puts the server.
const redisServerBin = "/usr/bin/redis-server"

// Bounds for a throwaway Redis: how long it may take to answer PING, how
// long it may take to exit, and how many ports to try.
const (
	redisStartTimeout = 10 * time.Second
	redisStopTimeout  = 5 * time.Second
	redisAttempts     = 3
)

// Redis starts a throwaway redis-server for the test on a free 127.0.0.1
// port, without persistence (--save "" --appendonly no), in t.TempDir(). It
// waits until the server answers PING, stops it at cleanup, and returns its
// URL, "redis://127.0.0.1:<port>".
func Redis(t testing.TB) string {
	t.Helper()
	bin, err := findRedisServer()
	if err != nil {
		t.Fatalf("testkit.Redis: %v", err)
	}
	dir := t.TempDir()
	var lastErr error
	for range redisAttempts {
		port, err := freePort()
		if err != nil {
			t.Fatalf("testkit.Redis: %v", err)
		}
		stop, err := startRedis(bin, dir, port)
		if err != nil {
			lastErr = err // most likely the port was taken meanwhile: try another
			continue
		}
		t.Cleanup(stop)
		return "redis://127.0.0.1:" + strconv.Itoa(port)
	}
	t.Fatalf("testkit.Redis: %v", lastErr)
	return ""
}

func findRedisServer() (string, error) {
	if _, err := os.Stat(redisServerBin); err == nil {
		return redisServerBin, nil
	}
	if p, err := exec.LookPath("redis-server"); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("redis-server not found at %s nor on PATH: run `make deps` (Debian package redis-server)", redisServerBin)
}

// freePort asks the kernel for a free port on 127.0.0.1.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// startRedis runs redis-server on port and waits for PING; it returns the
// function that stops it.
func startRedis(bin, dir string, port int) (stop func(), err error) {
	logPath := filepath.Join(dir, "redis-"+strconv.Itoa(port)+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("creating redis log: %w", err)
	}
	defer logFile.Close()
	cmd := exec.Command(bin,
		"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", dir, "--daemonize", "no")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting redis-server: %w", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	stop = func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(redisStopTimeout):
			_ = cmd.Process.Kill()
			<-exited
		}
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	deadline := time.Now().Add(redisStartTimeout)
	for {
		if ping(addr) == nil {
			return stop, nil
		}
		select {
		case <-exited:
			return nil, fmt.Errorf("redis-server exited before answering PING: %s", tail(logPath))
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			stop()
			return nil, fmt.Errorf("redis-server did not answer PING within %s: %s", redisStartTimeout, tail(logPath))
		}
	}
}

// ping sends PING over the Redis protocol and expects +PONG.
func ping(addr string) error {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(time.Second))
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return err
	}
	if strings.TrimSpace(line) != "+PONG" {
		return errors.New("unexpected PING reply " + strings.TrimSpace(line))
	}
	return nil
}

// tail returns the end of a log file for error messages.
func tail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(no log)"
	}
	const maxTail = 2000
	if len(b) > maxTail {
		b = b[len(b)-maxTail:]
	}
	return strings.TrimSpace(string(b))
}
