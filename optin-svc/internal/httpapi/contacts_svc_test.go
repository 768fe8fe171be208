package httpapi_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	contacts "github.com/paylane/paylane/contacts-svc/client"
	idclient "github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/optin-svc/internal/testsvc"
)

// With the real contacts-svc: contact_phone_id resolves through its phone
// records, and the landing page and inbound YES find or create contacts
// there with service tokens.
func TestAgainstContactsSvc(t *testing.T) {
	t.Parallel()
	env := testsvc.Start(t, testsvc.Options{RealContacts: true})
	tenant := env.NewTenant(t, testsvc.TenantOptions{OptIn: true, SMSNumber: "+15005550012"})
	ctx := context.Background()
	tokens := idclient.NewWithSecret(env.IdentityURL, testsvc.ServiceSecret, nil).WithService("optin-test")
	serviceToken, err := tokens.ServiceToken(ctx, tenant, []string{"api:create-contact", "api:view-any-contact"})
	if err != nil {
		t.Fatal(err)
	}
	cc := contacts.New(env.ContactsURL, nil)
	ada, _, err := cc.FindOrCreate(ctx, serviceToken, contacts.ContactInput{FirstName: "Ada", Phone: "+14155550401"}, "")
	if err != nil {
		t.Fatal(err)
	}

	api := env.Token(t, tenant, createSuppression, viewCodes)
	res := env.Do(t, http.MethodPost, "/api/v1/suppression-list", api,
		map[string]any{"contact_phone_id": ada.PhoneID, "reason": "manual"})
	var one struct{ Data suppressionRow }
	res.Decode(t, &one)
	if res.Status != http.StatusCreated || one.Data.PhoneLast4 != "0401" || *one.Data.ContactPhoneID != ada.PhoneID {
		t.Fatalf("POST with a real phone id = %d %s", res.Status, res.Body)
	}
	res = env.Do(t, http.MethodPost, "/api/v1/suppression-list", api,
		map[string]any{"contact_phone_id": ada.ID, "reason": "manual"}) // a contact id is not a phone id
	if res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("POST with a contact id = %d %s, want 422", res.Status, res.Body)
	}

	code := env.NewCode(t, tenant, map[string]any{"name": "Desk"})
	b := env.Browser()
	b.Get(t, code.Path())
	if res := b.Submit(t, code.Path(), url.Values{"phone": {"415-555-0402"}, "consent": {"yes"}}); res.Status != http.StatusOK {
		t.Fatalf("landing page = %d %s", res.Status, res.Body)
	}
	env.Text(t, "+14155550401", "+15005550012", "YES") // Ada exists: found, not created
	found, err := cc.Search(ctx, serviceToken, contacts.SearchQuery{Phone: "+14155550402"})
	if err != nil || len(found) != 1 {
		t.Fatalf("contacts of the landing page number = %+v, %v", found, err)
	}
	byContact := map[string]string{}
	for _, c := range consents(t, env, api, "?status=confirmed") {
		byContact[c.ContactID] = c.Status
	}
	if len(byContact) != 2 || byContact[found[0].ContactID] == "" || byContact[ada.ID] == "" {
		t.Fatalf("consents by contact = %v, want Ada %s and %s", byContact, ada.ID, found[0].ContactID)
	}
}
