package clientcontract_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/optin-svc/client"
	"github.com/paylane/paylane/optin-svc/internal/testenv"
)

func TestMain(m *testing.M) { testkit.Main(m) }

const tenantNumber = "+15005550011"

func TestOptInStatusFollowsConsentsAndSuppression(t *testing.T) {
	t.Parallel()
	env := testenv.Start(t, testenv.Options{})
	tenant := env.NewTenant(t, testenv.TenantOptions{OptIn: true, SMSNumber: tenantNumber})
	token := env.Token(t, tenant, "api:view-contact", "api:create-suppression")
	c := client.New(env.BaseURL+"/", nil)
	ctx := context.Background()
	single := env.NewCode(t, tenant, map[string]any{"name": "Desk"})
	double := env.NewCode(t, tenant, map[string]any{"name": "Poster", "double_opt_in": true})

	const (
		confirmedNo = "+14155550301"
		pendingNo   = "+14155550302"
		stoppedNo   = "+14155550303"
		blockedNo   = "+14155550304"
	)
	env.Subscribe(t, single, confirmedNo)
	env.Subscribe(t, double, pendingNo)
	env.Subscribe(t, single, stoppedNo)
	env.Text(t, stoppedNo, tenantNumber, "STOP")
	env.Subscribe(t, single, blockedNo)
	res := env.Do(t, http.MethodPost, "/api/v1/suppression-list", token, map[string]any{
		"contact_phone_id": env.Contacts.AddPhone(tenant, blockedNo), "reason": "complaint"})
	if res.Status != http.StatusCreated {
		t.Fatalf("suppressing = %d %s", res.Status, res.Body)
	}

	tests := []struct {
		name, contact, phone string
		status               string
		consents             []string
	}{
		{"confirmed", env.Contacts.ContactOf(tenant, confirmedNo), confirmedNo, client.StatusOptedIn, []string{"confirmed"}},
		{"confirmed, found by contact only", env.Contacts.ContactOf(tenant, confirmedNo), "", client.StatusOptedIn, []string{"confirmed"}},
		{"pending double opt-in", env.Contacts.ContactOf(tenant, pendingNo), pendingNo, client.StatusPending, []string{"pending"}},
		{"STOP revoked and suppressed", env.Contacts.ContactOf(tenant, stoppedNo), stoppedNo, client.StatusOptedOut, []string{"revoked"}},
		{"suppressed beats confirmed", env.Contacts.ContactOf(tenant, blockedNo), blockedNo, client.StatusOptedOut, []string{"confirmed"}},
		{"number without consents", ids.New(), "+14155550399", client.StatusNone, []string{}},
		{"unknown contact", ids.New(), "", client.StatusNone, []string{}},
		{"consents of the number reach a new contact", ids.New(), confirmedNo, client.StatusOptedIn, []string{"confirmed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, consents, err := c.OptInStatus(ctx, "Bearer "+token, tt.contact, tt.phone)
			if err != nil {
				t.Fatal(err)
			}
			got := []string{}
			for _, k := range consents {
				got = append(got, k.Status)
				if k.ConsentedAt == nil || k.CreatedAt.IsZero() || k.Channel != "sms" || k.OptInCodeID == "" {
					t.Errorf("consent = %+v", k)
				}
			}
			if status != tt.status || len(got) != len(tt.consents) || (len(got) > 0 && got[0] != tt.consents[0]) {
				t.Errorf("OptInStatus() = %s %v, want %s %v", status, got, tt.status, tt.consents)
			}
		})
	}
	// A token without "Bearer " works the same.
	if status, _, err := c.OptInStatus(ctx, token, env.Contacts.ContactOf(tenant, confirmedNo), ""); err != nil || status != client.StatusOptedIn {
		t.Errorf("raw token: %s, %v", status, err)
	}
	// Another tenant sees none of it.
	other := env.Token(t, env.NewTenant(t, testenv.TenantOptions{}), "api:view-contact")
	if status, consents, err := c.OptInStatus(ctx, other, env.Contacts.ContactOf(tenant, confirmedNo), confirmedNo); err != nil ||
		status != client.StatusNone || len(consents) != 0 {
		t.Errorf("other tenant: %s %v %v", status, consents, err)
	}
}

func TestOptInStatusRefusesBadTokens(t *testing.T) {
	t.Parallel()
	env := testenv.Start(t, testenv.Options{})
	c := client.New(env.BaseURL, nil)
	for _, token := range []string{"", "not-a-jwt"} {
		_, _, err := c.OptInStatus(context.Background(), token, ids.New(), "")
		var e *client.Error
		if !errors.As(err, &e) || e.Status != http.StatusUnauthorized || e.Code != "unauthenticated" || e.RequestID == "" {
			t.Errorf("token %q: %v, want 401 unauthenticated with a request id", token, err)
		}
	}
}
