package webhook_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/paylane/paylane/webhook-svc/internal/webhook"
)

func ptr[T any](v T) *T { return &v }

func TestValidate(t *testing.T) {
	t.Parallel()
	valid := webhook.Input{Name: ptr("Orders"), URL: ptr("https://example.com/hooks"), SubscribedEvents: ptr([]string{"contact.created"})}
	with := func(f func(*webhook.Input)) webhook.Input {
		in := valid
		f(&in)
		return in
	}
	tests := []struct {
		name   string
		in     webhook.Input
		mode   webhook.Mode
		fields []string // fields named in the error; nil means valid
	}{
		{"valid", valid, webhook.Create, nil},
		{"patterns", with(func(in *webhook.Input) {
			in.SubscribedEvents = ptr([]string{"*", "payable.*", "message.delivered", "contact.batch.completed"})
		}), webhook.Create, nil},
		{"missing everything", webhook.Input{}, webhook.Create, []string{"name", "subscribed_events", "url"}},
		{"put needs every field", webhook.Input{Name: ptr("x")}, webhook.Replace, []string{"subscribed_events", "url"}},
		{"patch checks only what is sent", webhook.Input{IsActive: ptr(false)}, webhook.Patch, nil},
		{"blank name", with(func(in *webhook.Input) { in.Name = ptr("  ") }), webhook.Create, []string{"name"}},
		{"name 120", with(func(in *webhook.Input) { in.Name = ptr(strings.Repeat("é", 120)) }), webhook.Create, nil},
		{"name 121", with(func(in *webhook.Input) { in.Name = ptr(strings.Repeat("a", 121)) }), webhook.Create, []string{"name"}},
		{"http url", with(func(in *webhook.Input) { in.URL = ptr("http://example.com/hooks") }), webhook.Create, []string{"url"}},
		{"not a url", with(func(in *webhook.Input) { in.URL = ptr("https://") }), webhook.Create, []string{"url"}},
		{"credentials in url", with(func(in *webhook.Input) { in.URL = ptr("https://u:p@example.com/") }), webhook.Create, []string{"url"}},
		{"url 2048", with(func(in *webhook.Input) { in.URL = ptr("https://example.com/" + strings.Repeat("a", 2028)) }), webhook.Create, nil},
		{"url 2049", with(func(in *webhook.Input) { in.URL = ptr("https://example.com/" + strings.Repeat("a", 2029)) }), webhook.Create, []string{"url"}},
		{"empty events", with(func(in *webhook.Input) { in.SubscribedEvents = ptr([]string{}) }), webhook.Patch, []string{"subscribed_events"}},
		{"unknown type", with(func(in *webhook.Input) { in.SubscribedEvents = ptr([]string{"contact.exploded"}) }), webhook.Create, []string{"subscribed_events"}},
		{"internal type", with(func(in *webhook.Input) { in.SubscribedEvents = ptr([]string{"token.revoked"}) }), webhook.Create, []string{"subscribed_events"}},
		{"unknown domain", with(func(in *webhook.Input) { in.SubscribedEvents = ptr([]string{"tenant.*"}) }), webhook.Create, []string{"subscribed_events"}},
		{"two-segment wildcard", with(func(in *webhook.Input) { in.SubscribedEvents = ptr([]string{"contact.batch.*"}) }), webhook.Create, []string{"subscribed_events"}},
		{"prefix wildcard", with(func(in *webhook.Input) { in.SubscribedEvents = ptr([]string{"contact*"}) }), webhook.Create, []string{"subscribed_events"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := webhook.Validate(tt.in, tt.mode)
			var ve *webhook.ValidationError
			if tt.fields == nil {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if !errors.As(err, &ve) {
				t.Fatalf("Validate = %v, want a validation error", err)
			}
			var got []string
			for f := range ve.Fields {
				got = append(got, f)
			}
			if diff := cmp.Diff(tt.fields, got, cmpSorted); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
		})
	}
}

var cmpSorted = cmpopts.SortSlices(func(a, b string) bool { return a < b })

func TestValidateDropsDuplicatePatterns(t *testing.T) {
	t.Parallel()
	in := webhook.Input{SubscribedEvents: ptr([]string{"contact.*", "*", "contact.*"})}
	ch, err := webhook.Validate(in, webhook.Patch)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"contact.*", "*"}, ch.SubscribedEvents); diff != "" {
		t.Errorf("patterns (-want +got):\n%s", diff)
	}
}

func TestPatternsForMatchEventsMatches(t *testing.T) {
	t.Parallel()
	for _, typ := range []string{"contact.created", "contact.batch.completed", "opt_in.revoked"} {
		for _, p := range webhook.PatternsFor(typ) {
			if !webhook.KnownPattern(p) {
				t.Errorf("%s: pattern %q is not a valid subscription", typ, p)
			}
		}
	}
}
