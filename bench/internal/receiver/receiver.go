// Package receiver is the webhook benchmark's local HTTPS receiver: it
// answers 200 to every POST and records when each event id (the "id" of
// the JSON body) first arrived.
package receiver

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// Receiver is a running receiver.
type Receiver struct {
	// URL is https://127.0.0.1:<port>/hooks.
	URL   string
	srv   *http.Server
	done  chan error
	mu    sync.Mutex
	first map[string]time.Time
	// wanted are the ids WaitFor waits for, and waiting how many of them
	// have not arrived yet: counted on arrival, so waiting costs nothing
	// per poll however many ids there are.
	wanted  map[string]bool
	waiting int
}

// Start serves on 127.0.0.1:0 with the certificate in certFile/keyFile.
func Start(certFile, keyFile string) (*Receiver, error) {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("loading the receiver's certificate: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listening: %w", err)
	}
	r := &Receiver{URL: "https://" + ln.Addr().String() + "/hooks", done: make(chan error, 1), first: map[string]time.Time{}}
	r.srv = &http.Server{
		Handler:           http.HandlerFunc(r.serve),
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() { r.done <- r.srv.ServeTLS(ln, "", "") }()
	return r, nil
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	at := time.Now()
	body, err := io.ReadAll(req.Body)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	var event struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(body, &event) == nil && event.ID != "" {
		r.mu.Lock()
		if _, seen := r.first[event.ID]; !seen {
			r.first[event.ID] = at
			if r.wanted[event.ID] {
				r.waiting--
			}
		}
		r.mu.Unlock()
	}
	w.WriteHeader(http.StatusOK)
}

// Arrived returns when each of ids first arrived; ids not arrived yet are
// missing from the map.
func (r *Receiver) Arrived(ids []string) map[string]time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]time.Time, len(ids))
	for _, id := range ids {
		if at, ok := r.first[id]; ok {
			out[id] = at
		}
	}
	return out
}

// WaitFor waits until every id arrived, ctx is done or limit passes, and
// returns the arrivals so far.
func (r *Receiver) WaitFor(ctx context.Context, ids []string, limit time.Duration) map[string]time.Time {
	r.mu.Lock()
	r.wanted, r.waiting = make(map[string]bool, len(ids)), 0
	for _, id := range ids {
		if _, seen := r.first[id]; !seen && !r.wanted[id] {
			r.waiting++
		}
		r.wanted[id] = true
	}
	r.mu.Unlock()
	deadline := time.Now().Add(limit)
	for {
		r.mu.Lock()
		left := r.waiting
		r.mu.Unlock()
		if left == 0 || time.Now().After(deadline) || ctx.Err() != nil {
			return r.Arrived(ids)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Close stops the receiver.
func (r *Receiver) Close() error {
	err := r.srv.Close()
	if serveErr := <-r.done; !errors.Is(serveErr, http.ErrServerClosed) {
		err = errors.Join(err, serveErr)
	}
	return err
}
