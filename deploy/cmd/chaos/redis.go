package main

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"time"

	"github.com/paylane/paylane/deploy/supervisor"
)

// startRedis runs a throwaway redis-server (no persistence) on a free
// loopback port under its own supervisor, for the gateway replicas' shared
// rate limits. It returns nil and no error when redis-server is missing.
func startRedis(ctx context.Context) (*supervisor.Supervisor, string, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, "", nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	addr := ln.Addr().String()
	ln.Close()
	_, port, _ := net.SplitHostPort(addr)
	sup, err := supervisor.New(supervisor.Options{}, supervisor.Spec{
		Name: "redis-server", Path: bin,
		Args: []string{"--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"},
	})
	if err != nil {
		return nil, "", err
	}
	if err := sup.Start(ctx); err != nil {
		return nil, "", err
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			sup.Stop()
			return nil, "", fmt.Errorf("redis-server not listening on %s", addr)
		}
	}
	return sup, "redis://" + addr + "/0", nil
}

// withRedis adds REDIS_URL to the gateway's environment.
func withRedis(env map[string][]string, url string) map[string][]string {
	if url != "" {
		env["gateway"] = append(env["gateway"], "REDIS_URL="+url)
	}
	return env
}
