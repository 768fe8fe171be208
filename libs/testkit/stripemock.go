package testkit

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// StripeMockVersion pins stripe-mock (github.com/stripe/stripe-mock), the
// stand-in for Stripe's API in the tests and the local stack: a Go program
// that serves Stripe's OpenAPI with fixtures and accepts any sk_test_ key.
const StripeMockVersion = "v0.203.0"

// Bounds for a throwaway stripe-mock.
const (
	stripeMockBuildTimeout = 5 * time.Minute
	stripeMockStartTimeout = 30 * time.Second
)

// StripeMockBinary returns the path of stripe-mock at StripeMockVersion,
// building it first with `go install` from the module proxy into the
// user's cache directory (never into the repository). The build goes to a
// temporary directory and is renamed into place, so concurrent callers
// (test binaries running in parallel) never see half a file.
func StripeMockBinary(ctx context.Context) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("stripe-mock: no cache directory: %w", err)
	}
	dir := filepath.Join(cache, "paylane", "stripe-mock-"+StripeMockVersion)
	bin := filepath.Join(dir, "stripe-mock")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("stripe-mock: %w", err)
	}
	tmp, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return "", fmt.Errorf("stripe-mock: %w", err)
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(ctx, stripeMockBuildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "install", "github.com/stripe/stripe-mock@"+StripeMockVersion)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GOBIN="+tmp, "GOWORK=off", "GOFLAGS=-buildvcs=false")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("stripe-mock: go install github.com/stripe/stripe-mock@%s: %w\n%s", StripeMockVersion, err, out)
	}
	if err := os.Rename(filepath.Join(tmp, "stripe-mock"), bin); err != nil {
		return "", fmt.Errorf("stripe-mock: %w", err)
	}
	return bin, nil
}

// StartStripeMock runs stripe-mock over HTTP on a port the kernel picks on
// 127.0.0.1 (its HTTPS listener too, unused), writing its output to logs
// (discarded when nil), and waits until it answers. It returns its base URL
// and the function that stops it.
func StartStripeMock(ctx context.Context, logs io.Writer) (string, func(), error) {
	bin, err := StripeMockBinary(ctx)
	if err != nil {
		return "", nil, err
	}
	if logs == nil {
		logs = io.Discard
	}
	cmd := exec.Command(bin, "-http-addr", "127.0.0.1:", "-https-addr", "127.0.0.1:")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, fmt.Errorf("stripe-mock: %w", err)
	}
	cmd.Stderr = logs
	// Killed with its parent, so an interrupted test run leaves none behind.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("stripe-mock: %w", err)
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			if a, ok := strings.CutPrefix(line, "Listening for HTTP at address: "); ok {
				select {
				case addr <- strings.TrimSpace(a):
				default:
				}
			}
			fmt.Fprintln(logs, line)
		}
		_, _ = io.Copy(logs, out)
	}()
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	stop := func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}
	select {
	case a := <-addr:
		url := "http://" + a
		if err := waitStripeMock(ctx, url, exited); err != nil {
			stop()
			return "", nil, err
		}
		return url, stop, nil
	case <-exited:
		return "", nil, errors.New("stripe-mock exited at start")
	case <-time.After(stripeMockStartTimeout):
		stop()
		return "", nil, errors.New("stripe-mock did not say where it listens")
	}
}

// waitStripeMock polls until stripe-mock answers an authenticated request.
func waitStripeMock(ctx context.Context, url string, exited <-chan struct{}) error {
	deadline := time.Now().Add(stripeMockStartTimeout)
	for time.Now().Before(deadline) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/v1/account", nil)
		req.SetBasicAuth("sk_test_probe", "")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-exited:
			return errors.New("stripe-mock exited at start")
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return errors.New("stripe-mock did not answer in time")
}

// StripeMock starts a stripe-mock for the test (building it on first use),
// stops it at cleanup, and returns its base URL, the API base to give
// stripe-go.
func StripeMock(t testing.TB) string {
	t.Helper()
	url, stop, err := StartStripeMock(context.Background(), nil)
	if err != nil {
		t.Fatalf("testkit.StripeMock: %v", err)
	}
	t.Cleanup(stop)
	return url
}
