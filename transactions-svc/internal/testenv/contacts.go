package testenv

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	// Tests only: contacts-svc's exported Run starts the real peer service,
	// reached through its client package like in production. The service's
	// own code imports nothing of contacts-svc but contacts-svc/client.
	contacts "github.com/paylane/paylane/contacts-svc"
	"github.com/paylane/paylane/contacts-svc/client"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/envconf"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/pgcluster"
	"github.com/paylane/paylane/libs/svcrun"
	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/transactions-svc/internal/app"
	contactsadapter "github.com/paylane/paylane/transactions-svc/internal/contacts"
	"github.com/paylane/paylane/transactions-svc/internal/httpapi"
)

// peer is the contacts-svc, and the identity key set it trusts, that every
// Env of this test binary shares; tests keep apart by tenant. Like
// testkit's cluster it is the one package-level variable here: New receives
// only t, and migrating contacts-svc's database for every test would cost
// most of the test's time. It lives until the binary exits (testkit.Main
// stops the cluster under it last).
var peer = &peerState{}

type peerState struct {
	once        sync.Once
	err         error
	signer      *authz.Signer
	identityURL string
	contactsURL string
}

// sharedPeer starts the peer on first use.
func sharedPeer(t testing.TB) *peerState {
	t.Helper()
	cluster := testkit.PG(t).Cluster()
	peer.once.Do(func() { peer.err = peer.start(cluster) })
	if peer.err != nil {
		t.Fatalf("testenv: starting contacts-svc: %v", peer.err)
	}
	return peer
}

func (p *peerState) start(cluster *pgcluster.Cluster) error {
	seed, err := authz.GenerateSeed()
	if err != nil {
		return err
	}
	if p.signer, err = authz.NewSigner(seed); err != nil {
		return err
	}
	identity := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(p.signer.JWKS())
	}))
	p.identityURL = identity.URL
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ownerDSN, appDSN, err := pgcluster.ServiceDB(ctx, cluster, "contacts_peer")
	if err != nil {
		return err
	}
	ready := make(chan svcrun.Addrs, 1)
	done := make(chan error, 1)
	cfg := contacts.Config{
		Base: envconf.Base{HTTPAddr: "127.0.0.1:0", InternalAddr: "127.0.0.1:0",
			DatabaseURL: appDSN, MigrateDatabaseURL: ownerDSN, DBMaxConns: 8, IdentityURL: identity.URL},
		DefaultRegion: "US",
	}
	go func() {
		done <- contacts.Run(context.Background(), cfg, svcrun.WithReady(func(a svcrun.Addrs) { ready <- a }))
	}()
	select {
	case a := <-ready:
		p.contactsURL = "http://" + a.HTTP
		return nil
	case err := <-done:
		return fmt.Errorf("contacts-svc stopped before it was ready: %w", err)
	}
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

// UseContacts rebuilds the service to call the contacts-svc at url (a
// fake, such as contacts-svc/client/clienttest) instead of the real peer.
func (e *Env) UseContacts(t testing.TB, url string) {
	t.Helper()
	e.ContactsURL = url
	e.App = app.New(e.Store, contactsadapter.New(url, nil, 5*time.Second), e.Links, e.Clock.Now)
	verifier, err := authz.NewStaticVerifier(e.Signer.JWKS())
	if err != nil {
		t.Fatal(err)
	}
	e.Web = httpx.NewApp(nil, fiber.Config{BodyLimit: httpapi.MaxBody})
	httpapi.Register(e.Web, httpapi.Deps{App: e.App, Verifier: verifier, Pool: e.Pool})
}
