package testenv

import (
	"context"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/contacts-svc/client"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/transactions-svc/internal/app"
	"github.com/paylane/paylane/transactions-svc/internal/httpapi"
	"github.com/paylane/paylane/transactions-svc/internal/peers"
)

// Contact creates a live contact of tenant in the contacts-svc fake, through
// the client as the service would, and returns it.
func (e *Env) Contact(t testing.TB, tenant, externalID, firstName, phone string) client.Contact {
	t.Helper()
	c, _, err := client.New(e.ContactsURL, nil).FindOrCreate(context.Background(), e.Token(t, tenant),
		client.ContactInput{ExternalID: externalID, FirstName: firstName, LastName: "Test", Phone: phone}, "")
	if err != nil {
		t.Fatalf("creating contact: %v", err)
	}
	return *c
}

// DeleteContact soft-deletes a contact in the contacts-svc fake.
func (e *Env) DeleteContact(t testing.TB, tenant, id string) {
	t.Helper()
	if !e.Contacts.Delete(tenant, id) {
		t.Fatalf("deleting contact %s: no live contact of tenant %s", id, tenant)
	}
}

// UseContacts rebuilds the service to call the contacts-svc at url (another
// fake, such as one that fails) instead of Env.Contacts.
func (e *Env) UseContacts(t testing.TB, url string) {
	t.Helper()
	e.ContactsURL = url
	e.App = app.New(e.Store, peers.NewContacts(url, nil, 5*time.Second), e.Links, e.Clock.Now)
	verifier, err := authz.NewStaticVerifier(e.Signer.JWKS())
	if err != nil {
		t.Fatal(err)
	}
	e.Web = httpx.NewApp(nil, fiber.Config{BodyLimit: httpapi.MaxBody})
	httpapi.Register(e.Web, httpapi.Deps{App: e.App, Verifier: verifier, Pool: e.Pool})
}
