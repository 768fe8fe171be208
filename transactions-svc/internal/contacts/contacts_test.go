package contacts_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/paylane/paylane/transactions-svc/internal/app"
	"github.com/paylane/paylane/transactions-svc/internal/contacts"
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
	r := contacts.New("http://"+addr, nil, time.Second)
	_, err = r.Resolve(context.Background(), "token", app.ContactRef{ID: "01JD3X0Q4Z8W2E5R7T9Y1V3K5M"})
	if !errors.Is(err, app.ErrUnavailable) {
		t.Fatalf("Resolve = %v, want ErrUnavailable", err)
	}
	_, err = r.Resolve(context.Background(), "token", app.ContactRef{ID: "not-a-ulid"})
	if !errors.Is(err, txn.ErrContactNotFound) {
		t.Fatalf("Resolve(not a ULID) = %v, want ErrContactNotFound without a call", err)
	}
}
