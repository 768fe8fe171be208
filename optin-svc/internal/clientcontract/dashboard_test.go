package clientcontract_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/optin-svc/client"
	"github.com/paylane/paylane/optin-svc/internal/testenv"
)

// The dashboard's calls: codes (list, read, create with an
// Idempotency-Key), consent counts per code, consents, and the suppression
// list (add by phone record, remove by entry id), each behind the API's
// ability and scoped to the token's tenant.
func TestDashboardCalls(t *testing.T) {
	t.Parallel()
	env := testenv.Start(t, testenv.Options{})
	tenant := env.NewTenant(t, testenv.TenantOptions{OptIn: true, SMSNumber: "+15005550012"})
	token := env.Token(t, tenant, "api:view-any-opt-in-code", "api:create-opt-in-code",
		"api:view-any-suppression", "api:create-suppression", "api:delete-suppression")
	c := client.New(env.BaseURL, nil)
	ctx := context.Background()

	// Create: a 422 for a missing name, then one code for two sends of a key.
	var e *client.Error
	if _, err := c.CreateCode(ctx, token, "", client.CodeInput{}); !errors.As(err, &e) || e.Status != 422 || len(e.Fields()["name"]) == 0 {
		t.Fatalf("code without a name: %v, want 422 on name", err)
	}
	double := true
	key := ids.New()
	made, err := c.CreateCode(ctx, token, key, client.CodeInput{Name: "Counter", DoubleOptIn: &double})
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.CreateCode(ctx, token, key, client.CodeInput{Name: "Counter", DoubleOptIn: &double})
	if err != nil || again.ID != made.ID {
		t.Fatalf("the same key again = %+v, %v; want code %s", again, err, made.ID)
	}
	if !made.IsDefault || !made.IsLive || !made.DoubleOptIn || made.URL == "" || made.CreatedAt.IsZero() {
		t.Errorf("created code = %+v", made)
	}
	got, err := c.Code(ctx, token, made.ID)
	if err != nil || got.URL != made.URL || got.Name != "Counter" {
		t.Fatalf("Code() = %+v, %v", got, err)
	}
	if _, err := c.Code(ctx, token, ids.New()); client.StatusOf(err) != http.StatusNotFound {
		t.Errorf("unknown code: %v, want 404", err)
	}
	single := env.NewCode(t, tenant, map[string]any{"name": "Desk", "is_live": false})
	page, err := c.Codes(ctx, token, client.CodeQuery{})
	if err != nil || page.Meta.Total != 2 || len(page.Data) != 2 || page.Data[0].ID != made.ID {
		t.Fatalf("Codes() = %+v, %v", page, err)
	}
	if page, err := c.Codes(ctx, token, client.CodeQuery{Active: "false"}); err != nil || len(page.Data) != 1 || page.Data[0].ID != single.ID {
		t.Errorf("inactive codes = %+v, %v", page, err)
	}
	if _, err := c.Codes(ctx, token, client.CodeQuery{Active: "maybe"}); client.StatusOf(err) != 422 {
		t.Errorf("active=maybe: %v, want 422", err)
	}

	// Counts and consents.
	env.Subscribe(t, testenv.Code{URL: made.URL}, "+14155550401")
	env.Subscribe(t, testenv.Code{URL: made.URL}, "+14155550402")
	counts, err := c.ConsentCounts(ctx, token)
	if err != nil || counts[made.ID] != (client.ConsentCounts{Pending: 2}) || len(counts) != 1 {
		t.Fatalf("ConsentCounts() = %v, %v", counts, err)
	}
	consents, err := c.Consents(ctx, token, client.ConsentQuery{Status: "pending", OptInCodeID: made.ID})
	if err != nil || consents.Meta.Total != 2 || len(consents.Data) != 2 || consents.Data[0].OptInCodeID != made.ID ||
		consents.Data[0].ConsentedAt == nil || consents.Data[0].ContactID == "" {
		t.Fatalf("Consents() = %+v, %v", consents, err)
	}
	if consents, err := c.Consents(ctx, token, client.ConsentQuery{Status: "confirmed"}); err != nil || len(consents.Data) != 0 {
		t.Errorf("confirmed consents = %+v, %v", consents, err)
	}
	if _, err := c.Consents(ctx, token, client.ConsentQuery{Status: "maybe"}); client.StatusOf(err) != 422 {
		t.Errorf("status=maybe: %v, want 422", err)
	}

	// Suppression list.
	phoneID := env.Contacts.AddPhone(tenant, "+14155550499")
	if _, err := c.AddSuppression(ctx, token, "", client.SuppressionInput{ContactPhoneID: ids.New(), Reason: "manual"}); !errors.As(err, &e) ||
		len(e.Fields()["contact_phone_id"]) == 0 {
		t.Fatalf("unknown phone record: %v, want 422 on contact_phone_id", err)
	}
	entry, err := c.AddSuppression(ctx, token, ids.New(), client.SuppressionInput{ContactPhoneID: phoneID, Reason: "complaint"})
	if err != nil || entry.PhoneLast4 != "0499" || entry.Reason != "complaint" || entry.Channel != "sms" || entry.ID == "" {
		t.Fatalf("AddSuppression() = %+v, %v", entry, err)
	}
	list, err := c.Suppressions(ctx, token, client.ListOptions{PerPage: 10})
	if err != nil || list.Meta.Total != 1 || list.Data[0].ID != entry.ID || list.Data[0].ContactPhoneID == nil {
		t.Fatalf("Suppressions() = %+v, %v", list, err)
	}
	other := env.Token(t, env.NewTenant(t, testenv.TenantOptions{OptIn: true}), "api:delete-suppression")
	if err := c.RemoveSuppression(ctx, other, "", entry.ID); client.StatusOf(err) != http.StatusNotFound {
		t.Errorf("another tenant's remove: %v, want 404", err)
	}
	removal := ids.New()
	if err := c.RemoveSuppression(ctx, token, removal, entry.ID); err != nil {
		t.Fatal(err)
	}
	if err := c.RemoveSuppression(ctx, token, removal, entry.ID); err != nil {
		t.Errorf("the removal sent again with its key: %v, want its first answer", err)
	}
	if err := c.RemoveSuppression(ctx, token, "", entry.ID); client.StatusOf(err) != http.StatusNotFound {
		t.Errorf("second remove: %v, want 404", err)
	}
	if err := c.RemoveSuppression(ctx, token, "", "not-an-id"); client.StatusOf(err) != http.StatusNotFound {
		t.Errorf("malformed id: %v, want 404", err)
	}
	if list, err := c.Suppressions(ctx, token, client.ListOptions{}); err != nil || len(list.Data) != 0 {
		t.Errorf("after remove = %+v, %v", list, err)
	}
}

// Each dashboard route keeps the API's gate: a token without the ability
// gets 403, and a tenant without opt-in sees no code routes.
func TestDashboardCallsAreGated(t *testing.T) {
	t.Parallel()
	env := testenv.Start(t, testenv.Options{})
	tenant := env.NewTenant(t, testenv.TenantOptions{OptIn: true})
	reader := env.Token(t, tenant, "api:view-any-opt-in-code", "api:view-any-suppression")
	c := client.New(env.BaseURL, nil)
	ctx := context.Background()
	if _, err := c.CreateCode(ctx, reader, "", client.CodeInput{Name: "X"}); client.StatusOf(err) != http.StatusForbidden {
		t.Errorf("create without api:create-opt-in-code: %v, want 403", err)
	}
	if err := c.RemoveSuppression(ctx, reader, "", ids.New()); client.StatusOf(err) != http.StatusForbidden {
		t.Errorf("remove without api:delete-suppression: %v, want 403", err)
	}
	if _, err := c.ConsentCounts(ctx, env.Token(t, tenant, "api:view-any-suppression")); client.StatusOf(err) != http.StatusForbidden {
		t.Errorf("counts without api:view-any-opt-in-code: %v, want 403", err)
	}
	off := env.Token(t, env.NewTenant(t, testenv.TenantOptions{}), "api:view-any-opt-in-code", "api:create-opt-in-code")
	if _, err := c.CreateCode(ctx, off, "", client.CodeInput{Name: "X"}); client.StatusOf(err) != http.StatusNotFound {
		t.Errorf("create with opt-in off: %v, want 404", err)
	}
	if _, err := c.ConsentCounts(ctx, off); client.StatusOf(err) != http.StatusNotFound {
		t.Errorf("counts with opt-in off: %v, want 404", err)
	}
}
