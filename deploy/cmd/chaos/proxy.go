package main

import (
	"fmt"
	"io"
	"net"
	"sync"
)

// proxy is a TCP proxy in front of the broker that can drop every
// connection: while it is down it closes the connections it holds and every
// new one at once, so the broker is unreachable for every client.
//
// The broker listens on a port of its own; the listener it gets reports the
// proxy's address, which the broker then advertises in its metadata, so
// clients that bootstrap and then follow the metadata still come through
// the proxy.
type proxy struct {
	ln net.Listener // the proxy's own listener

	mu     sync.Mutex
	target string // the broker's real address
	down   bool
	conns  map[net.Conn]struct{}
	closed bool
}

func newProxy() (*proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("proxy listener: %w", err)
	}
	p := &proxy{ln: ln, conns: map[net.Conn]struct{}{}}
	go p.serve()
	return p, nil
}

// listen is the broker's listen function (devstack.Options.BrokerListen).
func (p *proxy) listen(network, addr string) (net.Listener, error) {
	real, err := net.Listen(network, addr)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.target = real.Addr().String()
	p.mu.Unlock()
	return advertised{Listener: real, addr: p.ln.Addr()}, nil
}

// advertised is the broker's listener reporting the proxy's address.
type advertised struct {
	net.Listener
	addr net.Addr
}

func (a advertised) Addr() net.Addr { return a.addr }

// setDown drops every connection while down is true.
func (p *proxy) setDown(down bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = down
	if down {
		for c := range p.conns {
			_ = c.Close()
		}
	}
}

func (p *proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.handle(c)
	}
}

func (p *proxy) handle(client net.Conn) {
	p.mu.Lock()
	target, down := p.target, p.down
	p.mu.Unlock()
	if down || target == "" {
		_ = client.Close()
		return
	}
	upstream, err := net.Dial("tcp", target)
	if err != nil {
		_ = client.Close()
		return
	}
	if !p.track(client, upstream) {
		return
	}
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		_ = dst.Close()
		_ = src.Close()
		done <- struct{}{}
	}
	go pipe(upstream, client)
	go pipe(client, upstream)
	<-done
	<-done
	p.mu.Lock()
	delete(p.conns, client)
	delete(p.conns, upstream)
	p.mu.Unlock()
}

// track registers a connection pair unless the proxy went down meanwhile.
func (p *proxy) track(a, b net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down || p.closed {
		_ = a.Close()
		_ = b.Close()
		return false
	}
	p.conns[a], p.conns[b] = struct{}{}, struct{}{}
	return true
}

func (p *proxy) close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	_ = p.ln.Close()
	p.setDown(true)
}
