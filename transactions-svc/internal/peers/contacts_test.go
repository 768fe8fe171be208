package peers_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/paylane/paylane/transactions-svc/internal/app"
	"github.com/paylane/paylane/transactions-svc/internal/peers"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

func TestUnreachableContactsIsUnavailable(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	r := peers.NewContacts("http://"+addr, nil, time.Second)
	_, err = r.Resolve(context.Background(), "token", app.ContactRef{ID: "01JD3X0Q4Z8W2E5R7T9Y1V3K5M"})
	if !errors.Is(err, app.ErrUnavailable) {
		t.Fatalf("Resolve = %v, want ErrUnavailable", err)
	}
	_, err = r.Resolve(context.Background(), "token", app.ContactRef{ID: "not-a-ulid"})
	if !errors.Is(err, txn.ErrContactNotFound) {
		t.Fatalf("Resolve(not a ULID) = %v, want ErrContactNotFound without a call", err)
	}
}

// TestSlowContactsIsUnavailable: contacts-svc that does not answer within
// the resolver's timeout is app.ErrUnavailable (503), not a hung request
// nor an unknown contact.
func TestSlowContactsIsUnavailable(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	r := peers.NewContacts(srv.URL, nil, 50*time.Millisecond)
	_, err := r.Resolve(context.Background(), "token", app.ContactRef{ID: "01JD3X0Q4Z8W2E5R7T9Y1V3K5M"})
	if !errors.Is(err, app.ErrUnavailable) {
		t.Fatalf("Resolve = %v, want ErrUnavailable", err)
	}
}
