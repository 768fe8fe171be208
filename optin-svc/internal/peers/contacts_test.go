package peers_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	contacts "github.com/paylane/paylane/contacts-svc/client"
	"github.com/paylane/paylane/optin-svc/internal/optin"
	"github.com/paylane/paylane/optin-svc/internal/peers"
)

// An unreachable contacts-svc is ErrUnavailable (503 to API callers), not
// an unknown phone (422) nor a bare error (500).
func TestUnreachableContactsAreUnavailable(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close()
	c := peers.NewContacts(contacts.New(base, nil), nil)
	ctx := context.Background()
	if _, err := c.PhoneNumber(ctx, "T1", "a-token", "01J00000000000000000000000"); !errors.Is(err, optin.ErrUnavailable) ||
		errors.Is(err, optin.ErrUnknownPhone) {
		t.Errorf("PhoneNumber() = %v, want ErrUnavailable", err)
	}
	if _, err := c.FindOrCreateByPhone(ctx, "T1", "a-token", "+14155550100"); !errors.Is(err, optin.ErrUnavailable) {
		t.Errorf("FindOrCreateByPhone() = %v, want ErrUnavailable", err)
	}
}
