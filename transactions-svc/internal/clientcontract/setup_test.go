package clientcontract_test

import (
	"context"
	"testing"

	contacts "github.com/paylane/paylane/contacts-svc/client"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/transactions-svc/client"
	"github.com/paylane/paylane/transactions-svc/internal/testenv"
)

// newTenant starts a test environment served to a client and returns it with
// a fresh tenant, a token of it with every ability, and a live contact of it
// (external ID externalID, Ada at +14155550123).
func newTenant(t *testing.T, externalID string) (env *testenv.Env, c *client.Client, ctx context.Context, tenant, token string, contact contacts.Contact) {
	t.Helper()
	env = testenv.New(t)
	c = client.New(env.Serve(t), nil)
	ctx = context.Background()
	tenant = ids.New()
	token = env.Token(t, tenant)
	contact = env.Contact(t, tenant, externalID, "Ada", "+14155550123")
	return env, c, ctx, tenant, token, contact
}
