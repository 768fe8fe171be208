package tenant

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func decodePatch(t *testing.T, body string) Patch {
	t.Helper()
	var p Patch
	if err := json.Unmarshal([]byte(body), &p); err != nil {
		t.Fatalf("decoding %s: %v", body, err)
	}
	return p
}

func TestPatchValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		body       string
		creating   bool
		wantFields []string
	}{
		{"minimal create", `{"name":"Acme"}`, true, nil},
		{"full create", `{"name":"Acme","default_currency":"EUR","default_region":"DE","sms_number":"+4915112345678",
			"flags":{"ai_gateway":true,"opt_in":false},"limits":{"api_requests_per_minute":120,"batch_submissions_per_minute":5,"batches_in_flight":1}}`, true, nil},
		{"create without name", `{}`, true, []string{"name"}},
		{"update without name", `{}`, false, nil},
		{"null name", `{"name":null}`, false, []string{"name"}},
		{"blank name", `{"name":"   "}`, false, []string{"name"}},
		{"long name", `{"name":"` + strings.Repeat("é", MaxNameLength+1) + `"}`, false, []string{"name"}},
		{"name at the limit", `{"name":"` + strings.Repeat("é", MaxNameLength) + `"}`, false, nil},
		{"lower-case currency", `{"default_currency":"usd"}`, false, []string{"default_currency"}},
		{"unknown currency", `{"default_currency":"ABC"}`, false, []string{"default_currency"}},
		{"null currency", `{"default_currency":null}`, false, []string{"default_currency"}},
		{"long region", `{"default_region":"USA"}`, false, []string{"default_region"}},
		{"lower-case region", `{"default_region":"us"}`, false, []string{"default_region"}},
		{"unknown region", `{"default_region":"ZZ"}`, false, []string{"default_region"}},
		{"bad sms number", `{"sms_number":"555-1234"}`, false, []string{"sms_number"}},
		{"null sms number", `{"sms_number":null}`, false, nil},
		{"empty sms number", `{"sms_number":""}`, false, nil},
		{"null flag", `{"flags":{"opt_in":null}}`, false, []string{"flags.opt_in"}},
		{"zero limit", `{"limits":{"api_requests_per_minute":0}}`, false, []string{"limits.api_requests_per_minute"}},
		{"negative limit", `{"limits":{"batches_in_flight":-1}}`, false, []string{"limits.batches_in_flight"}},
		{"huge limit", `{"limits":{"batch_submissions_per_minute":1000001}}`, false, []string{"limits.batch_submissions_per_minute"}},
		{"null limit", `{"limits":{"api_requests_per_minute":null}}`, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for f := range decodePatch(t, tt.body).Validate(tt.creating) {
				got = append(got, f)
			}
			slices.Sort(got)
			if diff := cmp.Diff(tt.wantFields, got); diff != "" {
				t.Errorf("Validate() fields (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPatchApply(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	base := New("01J0000000000000000000000A", now)
	base.Name = "Acme"
	base.SMSNumber = "+15550001111"
	base.Flags = Flags{AIGateway: true}
	base.Limits = Limits{APIRequestsPerMinute: 120, BatchesInFlight: 3}
	tests := []struct {
		name string
		body string
		want func(Tenant) Tenant
	}{
		{"empty patch keeps everything", `{}`, func(t Tenant) Tenant { return t }},
		{"name is trimmed", `{"name":"  New  "}`, func(t Tenant) Tenant { t.Name = "New"; return t }},
		{"one flag changes, the other stays", `{"flags":{"opt_in":true}}`, func(t Tenant) Tenant { t.Flags.OptIn = true; return t }},
		{"null sms number removes it", `{"sms_number":null}`, func(t Tenant) Tenant { t.SMSNumber = ""; return t }},
		{"null limit restores the default", `{"limits":{"api_requests_per_minute":null}}`, func(t Tenant) Tenant {
			t.Limits.APIRequestsPerMinute = 0
			return t
		}},
		{"limit set", `{"limits":{"batch_submissions_per_minute":7}}`, func(t Tenant) Tenant {
			t.Limits.BatchSubmissionsPerMinute = 7
			return t
		}},
		{"currency and region", `{"default_currency":"EUR","default_region":"FR"}`, func(t Tenant) Tenant {
			t.DefaultCurrency, t.DefaultRegion = "EUR", "FR"
			return t
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := decodePatch(t, tt.body).Apply(base)
			if diff := cmp.Diff(tt.want(base), got); diff != "" {
				t.Errorf("Apply() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLimitsEffective(t *testing.T) {
	t.Parallel()
	got := Limits{BatchesInFlight: 5}.Effective()
	want := Limits{APIRequestsPerMinute: 60, BatchSubmissionsPerMinute: 10, BatchesInFlight: 5}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Effective() (-want +got):\n%s", diff)
	}
}

func TestNullableTypeErrorNamesTheField(t *testing.T) {
	t.Parallel()
	var p Patch
	err := json.Unmarshal([]byte(`{"limits":{"api_requests_per_minute":"many"}}`), &p)
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Field != "limits.api_requests_per_minute" {
		t.Fatalf("Unmarshal error = %#v, want a type error on limits.api_requests_per_minute", err)
	}
}
