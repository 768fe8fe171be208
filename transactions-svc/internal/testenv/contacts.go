package testenv

import (
	"context"
	"log/slog"
	"net/http"
	"testing"

	// Tests only: contacts-svc's exported Run starts the real peer service,
	// reached through its client package like in production. The service's
	// own code imports nothing of contacts-svc but contacts-svc/client.
	contacts "github.com/paylane/paylane/contacts-svc"
	"github.com/paylane/paylane/contacts-svc/client"
	"github.com/paylane/paylane/libs/testkit"
)

// startContacts runs contacts-svc on a fresh database, migrated by Run
// itself, trusting the keys served at identityURL, until the test ends.
func startContacts(t testing.TB, identityURL string) string {
	t.Helper()
	pg := testkit.PG(t)
	appDSN := pg.Database(t, "contacts_peer")
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan contacts.Addrs, 1)
	done := make(chan error, 1)
	cfg := contacts.Config{
		HTTPAddr: "127.0.0.1:0", InternalAddr: "127.0.0.1:0",
		DatabaseURL: appDSN, MigrateDatabaseURL: pg.OwnerDSN(t, appDSN), DBMaxConns: 4,
		IdentityURL: identityURL, DefaultRegion: "US",
		Ready:  func(a contacts.Addrs) { ready <- a },
		Logger: slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	go func() { done <- contacts.Run(ctx, cfg) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("contacts-svc Run: %v", err)
		}
	})
	select {
	case a := <-ready:
		return "http://" + a.HTTP
	case err := <-done:
		t.Fatalf("contacts-svc stopped before it was ready: %v", err)
	}
	return ""
}

// Contact creates a live contact of tenant in contacts-svc and returns it.
func (e *Env) Contact(t testing.TB, tenant, externalID, firstName, phone string) client.Contact {
	t.Helper()
	c, _, err := client.New(e.ContactsURL, nil).FindOrCreate(context.Background(), e.Token(t, tenant),
		client.ContactInput{ExternalID: externalID, FirstName: firstName, LastName: "Test", Phone: phone}, "")
	if err != nil {
		t.Fatalf("creating contact: %v", err)
	}
	return *c
}

// DeleteContact soft-deletes a contact through contacts-svc's public API.
func (e *Env) DeleteContact(t testing.TB, tenant, id string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodDelete, e.ContactsURL+"/api/v1/contacts/"+id, nil)
	req.Header.Set("Authorization", "Bearer "+e.Token(t, tenant, "api:delete-contact"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("deleting contact: %d", resp.StatusCode)
	}
}

// testWriter sends log lines to the test's log.
type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}
