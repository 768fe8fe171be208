package main

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"
)

// echoBehind starts an echo server through the proxy's listen function, as
// the broker's listener is opened, and returns the address it reports.
func echoBehind(t *testing.T, p *proxy) string {
	t.Helper()
	ln, err := p.listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				sc := bufio.NewScanner(c)
				for sc.Scan() {
					if _, err := c.Write([]byte(sc.Text() + "\n")); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

func roundTrip(c net.Conn, msg string) (string, error) {
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte(msg + "\n")); err != nil {
		return "", err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return strings.TrimSpace(line), err
}

func TestProxyAdvertisesItselfAndDropsEveryConnectionWhileDown(t *testing.T) {
	t.Parallel()
	p, err := newProxy()
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	addr := echoBehind(t, p)
	if addr != p.ln.Addr().String() {
		t.Fatalf("the listener reports %s, want the proxy's %s (the address the broker advertises)", addr, p.ln.Addr())
	}
	held, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if got, err := roundTrip(held, "one"); err != nil || got != "one" {
		t.Fatalf("through the proxy: %q, %v", got, err)
	}

	p.setDown(true)
	if _, err := roundTrip(held, "two"); err == nil {
		t.Error("a connection held before the outage still works while down")
	}
	if c, err := net.Dial("tcp", addr); err == nil {
		if _, err := roundTrip(c, "three"); err == nil {
			t.Error("a new connection works while down")
		}
		c.Close()
	}

	p.setDown(false)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got, err := roundTrip(c, "four"); err != nil || got != "four" {
		t.Fatalf("after healing: %q, %v", got, err)
	}
}

func TestCheckScheduleFindsEarlyRetries(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	scaled := func(i int) time.Duration { return time.Duration(float64(retrySchedule[i]) * retryTimeScale) }
	onTime := []time.Time{at, at.Add(scaled(0)), at.Add(scaled(0) + scaled(1))}
	early := []time.Time{at, at.Add(scaled(0)), at.Add(scaled(0) + scaled(1)/2)}
	got := checkSchedule(map[string][]time.Time{"on-time": onTime, "early": early})
	if len(got) != 1 || !strings.HasPrefix(got[0], "early retry 2 ") {
		t.Errorf("checkSchedule = %q, want only the early one's second retry", got)
	}
}
