package httpapi_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/optin-svc/internal/testenv"
)

const (
	viewSuppressions   = "api:view-any-suppression"
	createSuppression  = "api:create-suppression"
	deleteSuppressions = "api:delete-suppression"
)

type suppressionRow struct {
	ID             string  `json:"id"`
	PhoneLast4     string  `json:"phone_last4"`
	ContactPhoneID *string `json:"contact_phone_id"`
	Reason         string  `json:"reason"`
	Channel        string  `json:"channel"`
	Source         string  `json:"source"`
	CreatedAt      string  `json:"created_at"`
}

type suppressionPage struct {
	Data []suppressionRow `json:"data"`
	Meta struct {
		Total   int `json:"total"`
		PerPage int `json:"per_page"`
	} `json:"meta"`
}

func TestSuppressionLifecycle(t *testing.T) {
	t.Parallel()
	env := testenv.Start(t, testenv.Options{})
	tenant := env.NewTenant(t, testenv.TenantOptions{})
	token := env.Token(t, tenant, viewSuppressions, createSuppression, deleteSuppressions)
	phoneID := env.Contacts.AddPhone(tenant, "+14155550123")

	body := map[string]any{"contact_phone_id": phoneID, "reason": "complaint", "channel": "sms"}
	created := env.Do(t, http.MethodPost, "/api/v1/suppression-list", token, body)
	if created.Status != http.StatusCreated {
		t.Fatalf("POST = %d %s, want 201", created.Status, created.Body)
	}
	var one struct{ Data suppressionRow }
	created.Decode(t, &one)
	want := suppressionRow{ID: one.Data.ID, PhoneLast4: "0123", ContactPhoneID: &phoneID,
		Reason: "complaint", Channel: "sms", Source: "api", CreatedAt: one.Data.CreatedAt}
	if diff := cmp.Diff(want, one.Data); diff != "" {
		t.Errorf("created entry (-want +got):\n%s", diff)
	}
	if strings.Contains(string(created.Body), "4155550123") {
		t.Errorf("response shows the full number: %s", created.Body)
	}

	again := env.Do(t, http.MethodPost, "/api/v1/suppression-list", token,
		map[string]any{"contact_phone_id": phoneID, "reason": "manual", "channel": "sms"})
	var second struct{ Data suppressionRow }
	again.Decode(t, &second)
	if again.Status != http.StatusOK || second.Data.ID != one.Data.ID || second.Data.Reason != "complaint" {
		t.Errorf("second POST = %d %s, want 200 with the first entry", again.Status, again.Body)
	}

	list := env.Do(t, http.MethodGet, "/api/v1/suppression-list?channel=sms", token, nil)
	var page suppressionPage
	list.Decode(t, &page)
	if list.Status != http.StatusOK || page.Meta.Total != 1 || len(page.Data) != 1 || page.Data[0].ID != one.Data.ID {
		t.Fatalf("GET = %d %s", list.Status, list.Body)
	}

	del := env.Do(t, http.MethodDelete, "/api/v1/suppression-list/"+url.PathEscape("+14155550123")+"?channel=sms", token, nil)
	if del.Status != http.StatusNoContent || len(del.Body) != 0 {
		t.Fatalf("DELETE = %d %s, want 204", del.Status, del.Body)
	}
	gone := env.Do(t, http.MethodDelete, "/api/v1/suppression-list/%2B14155550123?channel=sms", token, nil)
	if gone.Status != http.StatusNotFound || gone.ErrorCode() != "resource_not_found" {
		t.Errorf("second DELETE = %d %s, want 404 resource_not_found", gone.Status, gone.Body)
	}

	outbox := env.Outbox(t, tenant)
	if diff := cmp.Diff([]string{events.TypeSuppressionCreated, events.TypeSuppressionDeleted}, testenv.Types(outbox)); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	var data events.Suppression
	if err := outbox[0].Decode(&data); err != nil {
		t.Fatal(err)
	}
	if data.ID != one.Data.ID || data.PhoneLast4 != "0123" || data.Source != "api" || outbox[0].TenantID != tenant {
		t.Errorf("suppression.created data = %+v", data)
	}
}

func TestSuppressionListFiltersAndPages(t *testing.T) {
	t.Parallel()
	env := testenv.Start(t, testenv.Options{})
	tenant := env.NewTenant(t, testenv.TenantOptions{})
	other := env.NewTenant(t, testenv.TenantOptions{})
	token := env.Token(t, tenant, viewSuppressions, createSuppression)
	otherToken := env.Token(t, other, viewSuppressions)
	numbers := []string{"+14155550101", "+14155550102", "+14155550103"}
	for _, n := range numbers {
		res := env.Do(t, http.MethodPost, "/api/v1/suppression-list", token,
			map[string]any{"contact_phone_id": env.Contacts.AddPhone(tenant, n), "reason": "manual", "channel": "sms"})
		if res.Status != http.StatusCreated {
			t.Fatalf("POST = %d %s", res.Status, res.Body)
		}
	}
	res := env.Do(t, http.MethodPost, "/api/v1/suppression-list", token,
		map[string]any{"contact_phone_id": env.Contacts.AddPhone(tenant, numbers[0]), "reason": "bounce", "channel": "email"})
	if res.Status != http.StatusCreated {
		t.Fatalf("POST email = %d %s", res.Status, res.Body)
	}

	tests := []struct {
		name      string
		token     string
		query     string
		wantLast4 []string
		wantTotal int
	}{
		{"sms newest first", token, "?channel=sms", []string{"0103", "0102", "0101"}, 3},
		{"channel defaults to sms", token, "", []string{"0103", "0102", "0101"}, 3},
		{"email", token, "?channel=email", []string{"0101"}, 1},
		{"second page", token, "?channel=sms&per_page=2&page=2", []string{"0101"}, 3},
		{"per_page capped", token, "?per_page=500", []string{"0103", "0102", "0101"}, 3},
		{"other tenant sees nothing", otherToken, "?channel=sms", []string{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := env.Do(t, http.MethodGet, "/api/v1/suppression-list"+tt.query, tt.token, nil)
			var page suppressionPage
			res.Decode(t, &page)
			got := []string{}
			for _, row := range page.Data {
				got = append(got, row.PhoneLast4)
			}
			if res.Status != http.StatusOK || page.Meta.Total != tt.wantTotal {
				t.Fatalf("GET = %d %s", res.Status, res.Body)
			}
			if diff := cmp.Diff(tt.wantLast4, got); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSuppressionRefusals(t *testing.T) {
	t.Parallel()
	env := testenv.Start(t, testenv.Options{})
	tenant := env.NewTenant(t, testenv.TenantOptions{})
	all := env.Token(t, tenant, viewSuppressions, createSuppression, deleteSuppressions)
	none := env.Token(t, tenant, "api:view-contact")
	phoneID := env.Contacts.AddPhone(tenant, "+14155550199")

	tests := []struct {
		name, method, path, token string
		body                      any
		status                    int
		code                      string
		field                     string
	}{
		{"no token", "GET", "/api/v1/suppression-list", "", nil, 401, "unauthenticated", ""},
		{"list without ability", "GET", "/api/v1/suppression-list", none, nil, 403, "forbidden", ""},
		{"create without ability", "POST", "/api/v1/suppression-list", none, map[string]any{}, 403, "forbidden", ""},
		{"delete without ability", "DELETE", "/api/v1/suppression-list/%2B14155550199", none, nil, 403, "forbidden", ""},
		{"list unknown channel", "GET", "/api/v1/suppression-list?channel=push", all, nil, 422, "validation_failed", "channel"},
		{"list empty channel", "GET", "/api/v1/suppression-list?channel=", all, nil, 422, "validation_failed", "channel"},
		{"list bad per_page", "GET", "/api/v1/suppression-list?per_page=0", all, nil, 422, "validation_failed", "per_page"},
		{"delete unknown channel", "DELETE", "/api/v1/suppression-list/%2B14155550199?channel=fax", all, nil, 422, "validation_failed", "channel"},
		{"delete unknown number", "DELETE", "/api/v1/suppression-list/%2B14155550199", all, nil, 404, "resource_not_found", ""},
		{"delete not a number", "DELETE", "/api/v1/suppression-list/hello", all, nil, 404, "resource_not_found", ""},
		{"create without fields", "POST", "/api/v1/suppression-list", all, map[string]any{}, 422, "validation_failed", "contact_phone_id"},
		{"create unknown phone", "POST", "/api/v1/suppression-list", all,
			map[string]any{"contact_phone_id": "01J00000000000000000000000", "reason": "manual"}, 422, "validation_failed", "contact_phone_id"},
		{"create bad reason", "POST", "/api/v1/suppression-list", all,
			map[string]any{"contact_phone_id": phoneID, "reason": "angry"}, 422, "validation_failed", "reason"},
		{"create bad channel", "POST", "/api/v1/suppression-list", all,
			map[string]any{"contact_phone_id": phoneID, "reason": "manual", "channel": "fax"}, 422, "validation_failed", "channel"},
		{"create unknown field", "POST", "/api/v1/suppression-list", all,
			map[string]any{"contact_phone_id": phoneID, "reason": "manual", "phone": "+1"}, 422, "validation_failed", "phone"},
		{"phone id of another tenant", "POST", "/api/v1/suppression-list", env.Token(t, env.NewTenant(t, testenv.TenantOptions{}), createSuppression),
			map[string]any{"contact_phone_id": phoneID, "reason": "manual"}, 422, "validation_failed", "contact_phone_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := env.Do(t, tt.method, tt.path, tt.token, tt.body)
			if res.Status != tt.status || res.ErrorCode() != tt.code {
				t.Fatalf("%s %s = %d %s, want %d %s", tt.method, tt.path, res.Status, res.Body, tt.status, tt.code)
			}
			if tt.field == "" {
				return
			}
			var env struct {
				Error struct {
					Details map[string][]string `json:"details"`
				} `json:"error"`
			}
			res.Decode(t, &env)
			if len(env.Error.Details[tt.field]) == 0 {
				t.Errorf("details = %v, want an entry for %s", env.Error.Details, tt.field)
			}
		})
	}
	if got := env.Outbox(t, tenant); len(got) != 0 {
		t.Errorf("refused requests recorded events: %v", testenv.Types(got))
	}
}

func TestSuppressionIdempotencyKeyReplays(t *testing.T) {
	t.Parallel()
	env := testenv.Start(t, testenv.Options{})
	tenant := env.NewTenant(t, testenv.TenantOptions{})
	token := env.Token(t, tenant, createSuppression)
	body := `{"contact_phone_id":"` + env.Contacts.AddPhone(tenant, "+14155550155") + `","reason":"manual"}`
	send := func() testenv.Response {
		req, err := http.NewRequest(http.MethodPost, env.BaseURL+"/api/v1/suppression-list", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Idempotency-Key", "suppress-1")
		return testenv.Send(t, req)
	}
	first, second := send(), send()
	if first.Status != http.StatusCreated || second.Status != http.StatusCreated || string(first.Body) != string(second.Body) {
		t.Fatalf("first %d %s, replay %d %s", first.Status, first.Body, second.Status, second.Body)
	}
	if second.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("replay lacks Idempotent-Replayed: %v", second.Header)
	}
	if got := testenv.Types(env.Outbox(t, tenant)); len(got) != 1 {
		t.Errorf("events = %v, want one suppression.created", got)
	}
}

// TestSuppressionListTotalAboveTheCapIsAnEstimate: with a cap of 2 (the
// seam of listtotal.DefaultCap), a channel of 3 entries reports an
// estimated total of at least 3 with meta.total_is_estimate and lists
// every entry; the other channel's empty list is exact.
func TestSuppressionListTotalAboveTheCapIsAnEstimate(t *testing.T) {
	t.Parallel()
	env := testenv.Start(t, testenv.Options{ListCap: 2})
	tenant := env.NewTenant(t, testenv.TenantOptions{})
	token := env.Token(t, tenant, viewSuppressions, createSuppression)
	for _, phone := range []string{"+14155550121", "+14155550122", "+14155550123"} {
		body := map[string]any{"contact_phone_id": env.Contacts.AddPhone(tenant, phone), "reason": "manual", "channel": "sms"}
		if res := env.Do(t, http.MethodPost, "/api/v1/suppression-list", token, body); res.Status != http.StatusCreated {
			t.Fatalf("POST = %d %s", res.Status, res.Body)
		}
	}
	for _, tc := range []struct {
		channel   string
		items     int
		estimated bool
	}{
		{"sms", 3, true},
		{"email", 0, false},
	} {
		res := env.Do(t, http.MethodGet, "/api/v1/suppression-list?channel="+tc.channel, token, nil)
		var page struct {
			Data []suppressionRow `json:"data"`
			Meta struct {
				Total           int   `json:"total"`
				TotalIsEstimate *bool `json:"total_is_estimate"`
			} `json:"meta"`
		}
		res.Decode(t, &page)
		estimated := page.Meta.TotalIsEstimate != nil && *page.Meta.TotalIsEstimate
		if res.Status != http.StatusOK || len(page.Data) != tc.items || estimated != tc.estimated ||
			(!tc.estimated && page.Meta.TotalIsEstimate != nil) ||
			(estimated && page.Meta.Total < tc.items) || (!estimated && page.Meta.Total != tc.items) {
			t.Errorf("GET channel=%s = %d %s", tc.channel, res.Status, res.Body)
		}
	}
}
