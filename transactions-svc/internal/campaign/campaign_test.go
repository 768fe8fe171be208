package campaign_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/paylane/paylane/transactions-svc/internal/campaign"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
	"github.com/paylane/paylane/transactions-svc/internal/verr"
)

func ptr[T any](v T) *T { return &v }

func rule(field, op, value string) campaign.Rule {
	return campaign.Rule{Field: field, Op: op, Value: json.RawMessage(value)}
}

func TestMatches(t *testing.T) {
	t.Parallel()
	s := campaign.Subject{Amount: 5000, Currency: "USD", CustomFields: map[string]json.RawMessage{
		"tier": json.RawMessage(`"gold"`), "score": json.RawMessage(`7`), "due": json.RawMessage(`"2026-12-01"`),
	}}
	tests := []struct {
		name  string
		rules []campaign.Rule
		want  bool
	}{
		{"no rules", nil, true},
		{"amount gte", []campaign.Rule{rule("amount", "gte", "5000")}, true},
		{"amount lte fails", []campaign.Rule{rule("amount", "lte", "4999")}, false},
		{"currency in", []campaign.Rule{rule("currency", "in", `["EUR","USD"]`)}, true},
		{"and", []campaign.Rule{rule("currency", "eq", `"USD"`), rule("amount", "gte", "6000")}, false},
		{"custom eq", []campaign.Rule{rule("custom_fields.tier", "eq", `"gold"`)}, true},
		{"custom number", []campaign.Rule{rule("custom_fields.score", "gte", `7.0`)}, true},
		{"custom date", []campaign.Rule{rule("custom_fields.due", "lte", `"2026-12-31"`)}, true},
		{"custom absent", []campaign.Rule{rule("custom_fields.nope", "eq", `1`)}, false},
		{"type mismatch", []campaign.Rule{rule("custom_fields.score", "eq", `"7"`)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := (campaign.Campaign{Rules: tt.rules}).Matches(s)
			if err != nil || got != tt.want {
				t.Errorf("Matches = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestSelectTakesTheFirstAssignableMatch(t *testing.T) {
	t.Parallel()
	list := []campaign.Campaign{
		{ID: "inactive", Direction: txn.Receivable, Status: campaign.Published, IsActive: false},
		{ID: "draft", Direction: txn.Receivable, Status: campaign.Draft, IsActive: true},
		{ID: "payable", Direction: txn.Payable, Status: campaign.Published, IsActive: true},
		{ID: "big", Direction: txn.Receivable, Status: campaign.Published, IsActive: true, Rules: []campaign.Rule{rule("amount", "gte", "10000")}},
		{ID: "all", Direction: txn.Receivable, Status: campaign.Published, IsActive: true},
	}
	got, ok, err := campaign.Select(list, txn.Receivable, campaign.Subject{Amount: 100, Currency: "USD"})
	if err != nil || !ok || got.ID != "all" {
		t.Fatalf("Select = %s, %v, %v; want all", got.ID, ok, err)
	}
	if _, ok, err := campaign.Select(list[:4], txn.Receivable, campaign.Subject{Amount: 100}); ok || err != nil {
		t.Fatalf("Select = %v, %v where no campaign applies; want none", ok, err)
	}
}

// A stored rule that breaks the rules' shape is an error naming the part at
// fault, never a silent "does not match".
func TestMalformedStoredRuleIsAnError(t *testing.T) {
	t.Parallel()
	s := campaign.Subject{Amount: 5000, Currency: "USD"}
	tests := []struct {
		name      string
		rule      campaign.Rule
		wantField string
	}{
		{"unknown field", rule("colour", "eq", `"red"`), "field"},
		{"unknown op", rule("amount", "between", "1"), "op"},
		{"in without an array", rule("currency", "in", `"USD"`), "value"},
		{"missing value", rule("amount", "eq", ""), "value"},
		{"amount not an integer", rule("amount", "gte", `"lots"`), "value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := campaign.Campaign{ID: "C1", Direction: txn.Receivable, Status: campaign.Published, IsActive: true,
				Rules: []campaign.Rule{rule("currency", "eq", `"USD"`), tt.rule}}
			ok, err := c.Matches(s)
			var me *campaign.MalformedRuleError
			if !errors.As(err, &me) || ok {
				t.Fatalf("Matches = %v, %v; want a *MalformedRuleError", ok, err)
			}
			if me.CampaignID != "C1" || me.Index != 1 || me.Field != tt.wantField {
				t.Errorf("error = %+v, want campaign C1, rule 1, part %s", me, tt.wantField)
			}
			later := campaign.Campaign{ID: "all", Direction: txn.Receivable, Status: campaign.Published, IsActive: true}
			if _, found, err := campaign.Select([]campaign.Campaign{c, later}, txn.Receivable, s); found || !errors.As(err, &me) {
				t.Errorf("Select = %v, %v; want the malformed rule's error, not the next campaign", found, err)
			}
		})
	}
}

func TestNewValidates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		in    campaign.Input
		field string
	}{
		{"name", campaign.Input{Direction: ptr("receivable")}, "name"},
		{"direction", campaign.Input{Name: ptr("x"), Direction: ptr("sideways")}, "direction"},
		{"delay", campaign.Input{Name: ptr("x"), Direction: ptr("payable"), Steps: []campaign.StepInput{{DelayHours: ptr(int64(0)), Message: ptr("hi")}}}, "steps.0.delay_hours"},
		{"message long", campaign.Input{Name: ptr("x"), Direction: ptr("payable"), Steps: []campaign.StepInput{{DelayHours: ptr(int64(1)), Message: ptr(string(make([]rune, 321)))}}}, "steps.0.message"},
		{"placeholder", campaign.Input{Name: ptr("x"), Direction: ptr("payable"), Steps: []campaign.StepInput{{DelayHours: ptr(int64(1)), Message: ptr("{{last_name}}")}}}, "steps.0.message"},
		{"too many steps", campaign.Input{Name: ptr("x"), Direction: ptr("payable"), Steps: make([]campaign.StepInput, 11)}, "steps"},
		{"rule field", campaign.Input{Name: ptr("x"), Direction: ptr("payable"), Rules: []campaign.RuleInput{{Field: ptr("phone"), Op: ptr("eq"), Value: json.RawMessage(`1`)}}}, "rules.0.field"},
		{"rule op", campaign.Input{Name: ptr("x"), Direction: ptr("payable"), Rules: []campaign.RuleInput{{Field: ptr("amount"), Op: ptr("gt"), Value: json.RawMessage(`1`)}}}, "rules.0.op"},
		{"rule in", campaign.Input{Name: ptr("x"), Direction: ptr("payable"), Rules: []campaign.RuleInput{{Field: ptr("amount"), Op: ptr("in"), Value: json.RawMessage(`5`)}}}, "rules.0.value"},
		{"rule currency", campaign.Input{Name: ptr("x"), Direction: ptr("payable"), Rules: []campaign.RuleInput{{Field: ptr("currency"), Op: ptr("eq"), Value: json.RawMessage(`"XXX"`)}}}, "rules.0.value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := campaign.New(tt.in)
			var ve *verr.Error
			if !errors.As(err, &ve) || len(ve.Fields[tt.field]) == 0 {
				t.Fatalf("New = %v, want a problem with %s", err, tt.field)
			}
		})
	}
}

func TestPublishAndRender(t *testing.T) {
	t.Parallel()
	c, err := campaign.New(campaign.Input{Name: ptr("Reminders"), Direction: ptr("receivable"),
		Steps: []campaign.StepInput{{DelayHours: ptr(int64(24)), Message: ptr("Hi {{first_name}}, {{ amount }} due: {{link}}")}}})
	if err != nil || c.Status != campaign.Draft || !c.IsActive {
		t.Fatalf("New = %+v, %v", c, err)
	}
	if c.Assignable(txn.Receivable) == nil {
		t.Fatal("a draft campaign is assignable")
	}
	c, err = c.Publish()
	if err != nil || c.Assignable(txn.Receivable) != nil || c.Assignable(txn.Payable) == nil {
		t.Fatalf("Publish = %v / assignable wrong", err)
	}
	if _, err := c.Publish(); err == nil || err.Error() != "published -> published" {
		t.Fatalf("second Publish = %v", err)
	}
	got := campaign.Render(c.Steps[0].Message, "Ada", "$5.00", "https://x/l/r/1")
	if want := "Hi Ada, $5.00 due: https://x/l/r/1"; got != want {
		t.Errorf("Render = %q, want %q", got, want)
	}
}
