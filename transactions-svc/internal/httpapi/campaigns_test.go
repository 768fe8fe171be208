package httpapi_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/tenancy"
	"github.com/paylane/paylane/transactions-svc/internal/testenv"
)

type campaignOne struct {
	Data struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	} `json:"data"`
}

func (f fixture) campaign(t *testing.T, body string, publish bool) string {
	t.Helper()
	r := f.do(t, http.MethodPost, "/api/v1/campaigns", body)
	expect(t, r, http.StatusCreated, "")
	var c campaignOne
	r.JSON(t, &c)
	if publish {
		expect(t, f.do(t, http.MethodPost, "/api/v1/campaigns/"+c.Data.ID+"/publish", ""), http.StatusOK, "")
	}
	return c.Data.ID
}

func TestCampaignCRUDAndPublish(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.campaign(t, `{"name":"Reminders","direction":"receivable","steps":[{"delay_hours":24,"message":"Hi {{first_name}}, {{amount}} is due: {{link}}"}],"rules":[{"field":"amount","op":"gte","value":1000}]}`, false)
	r := f.do(t, http.MethodGet, "/api/v1/campaigns/"+id, "")
	expect(t, r, http.StatusOK, "")
	var c campaignOne
	r.JSON(t, &c)
	if c.Data.Status != "draft" {
		t.Fatalf("new campaign %s", r.Body)
	}
	expect(t, f.do(t, http.MethodPut, "/api/v1/campaigns/"+id, `{"name":"Reminders 2","direction":"payable","priority":5}`), http.StatusOK, "")
	f.do(t, http.MethodPost, "/api/v1/campaigns/"+id+"/publish", "").JSON(t, &c)
	if c.Data.Status != "published" {
		t.Fatalf("published %+v", c.Data)
	}
	transitionError(t, f.do(t, http.MethodPost, "/api/v1/campaigns/"+id+"/publish", ""), "published", "published")
	expect(t, f.do(t, http.MethodPut, "/api/v1/campaigns/"+id, `{"name":"x","direction":"receivable"}`), http.StatusUnprocessableEntity, "validation_failed")
	expect(t, f.do(t, http.MethodPut, "/api/v1/campaigns/"+id, `{"name":"x","direction":"payable","status":"archived"}`), http.StatusOK, "")
	var p struct {
		Meta struct {
			Total   int `json:"total"`
			PerPage int `json:"per_page"`
		} `json:"meta"`
	}
	f.do(t, http.MethodGet, "/api/v1/campaigns", "").JSON(t, &p)
	if p.Meta.Total != 1 || p.Meta.PerPage != 15 {
		t.Fatalf("list meta %+v", p.Meta)
	}
	expect(t, f.do(t, http.MethodDelete, "/api/v1/campaigns/"+id, ""), http.StatusNoContent, "")
	expect(t, f.do(t, http.MethodGet, "/api/v1/campaigns/"+id, ""), http.StatusNotFound, "resource_not_found")
	expect(t, f.do(t, http.MethodPost, "/api/v1/campaigns", `{"name":"x","direction":"receivable","steps":[{"delay_hours":0,"message":"x"}]}`),
		http.StatusUnprocessableEntity, "validation_failed")
}

func TestAutoAssignmentAndFollowUps(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.campaign(t, `{"name":"Big","direction":"receivable","priority":10,"rules":[{"field":"amount","op":"gte","value":10000}]}`, true)
	all := f.campaign(t, `{"name":"All","direction":"receivable","steps":[{"delay_hours":24,"message":"Hi {{first_name}}, {{amount}} is due: {{link}}"},{"delay_hours":24,"message":"Last reminder: {{link}}"}]}`, true)
	f.campaign(t, `{"name":"Payouts","direction":"payable"}`, true)
	f.campaign(t, `{"name":"Draft","direction":"receivable","priority":99}`, false)

	it := f.create(t, "receivables", "") // 1250: not big
	if it.CampaignID == nil || *it.CampaignID != all {
		t.Fatalf("campaign %v, want %s", it.CampaignID, all)
	}
	f.env.Clock.Advance(23 * time.Hour)
	f.env.RunDue(t)
	if n := f.followUps(t); n != 0 {
		t.Fatalf("%d follow-ups before 24 h", n)
	}
	f.env.Clock.Advance(time.Hour)
	f.env.RunDue(t)
	if n := f.followUps(t); n != 1 {
		t.Fatalf("%d follow-ups after 24 h, want 1", n)
	}
	f.env.Clock.Advance(23 * time.Hour) // 47 h: the second step is due 24 h after the first
	f.env.RunDue(t)
	if n := f.followUps(t); n != 1 {
		t.Fatalf("%d follow-ups at 47 h, want 1", n)
	}
	f.env.Clock.Advance(time.Hour)
	f.env.RunDue(t)
	if n := f.followUps(t); n != 2 {
		t.Fatalf("%d follow-ups at 48 h, want 2", n)
	}
	f.env.Clock.Advance(48 * time.Hour) // the link expired at 72 h; no step is left anyway
	f.env.RunDue(t)
	if got := f.show(t, "receivables", it.ID); got.Status != "expired" || f.followUps(t) != 2 {
		t.Fatalf("at 96 h: %s, %d follow-ups", got.Status, f.followUps(t))
	}
	var assigned []string
	for _, e := range f.env.Events(t, f.tenant) {
		if e.Type == events.TypeTransactionCampaignAssigned {
			var d events.CampaignAssigned
			_ = e.Decode(&d)
			if !d.Automatic || d.TransactionID != it.TransactionID {
				t.Errorf("assignment %+v", d)
			}
			assigned = append(assigned, d.CampaignID)
		}
	}
	if len(assigned) != 1 || assigned[0] != all {
		t.Errorf("campaign_assigned %v", assigned)
	}
}

// followUps counts the follow-up notifications so far.
func (f fixture) followUps(t *testing.T) int {
	t.Helper()
	n := 0
	for _, e := range f.env.Events(t, f.tenant) {
		var d events.NotificationRequested
		if e.Type == events.TypeNotificationRequested && e.Decode(&d) == nil && d.Kind == events.KindFollowUp {
			n++
		}
	}
	return n
}

func TestCampaignAssignment(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	it := f.create(t, "receivables", "")
	if it.CampaignID != nil {
		t.Fatalf("assigned without campaigns: %v", *it.CampaignID)
	}
	first := f.campaign(t, `{"name":"A","direction":"receivable"}`, true)
	second := f.campaign(t, `{"name":"B","direction":"receivable"}`, true)
	inactive := f.campaign(t, `{"name":"C","direction":"receivable","is_active":false}`, true)
	draft := f.campaign(t, `{"name":"D","direction":"receivable"}`, false)
	payable := f.campaign(t, `{"name":"E","direction":"payable"}`, true)
	path := "/api/v1/transactions/" + it.TransactionID + "/campaign-assignment"
	for _, id := range []string{inactive, draft, payable, "01JD3X0Q4Z8W2E5R7T9Y1V3K5M", "nope"} {
		expect(t, f.do(t, http.MethodPost, path, `{"campaign_id":"`+id+`"}`), http.StatusUnprocessableEntity, "validation_failed")
	}
	expect(t, f.do(t, http.MethodPost, path, `{}`), http.StatusUnprocessableEntity, "validation_failed")
	r := f.do(t, http.MethodPost, path, `{"campaign_id":"`+first+`"}`)
	expect(t, r, http.StatusOK, "")
	var tr struct {
		Data struct {
			ID           string `json:"id"`
			CampaignID   string `json:"campaign_id"`
			ReceivableID string `json:"receivable_id"`
			Direction    string `json:"direction"`
		} `json:"data"`
	}
	r.JSON(t, &tr)
	if tr.Data.ID != it.TransactionID || tr.Data.CampaignID != first || tr.Data.ReceivableID != it.ID || tr.Data.Direction != "receivable" {
		t.Fatalf("assignment answer %s", r.Body)
	}
	expect(t, f.do(t, http.MethodPost, path, `{"campaign_id":"`+second+`"}`), http.StatusConflict, "already_assigned")
	expect(t, f.do(t, http.MethodPost, path, `{"campaign_id":"`+second+`","reassign":false}`), http.StatusConflict, "already_assigned")
	expect(t, f.do(t, http.MethodPost, path, `{"campaign_id":"`+second+`","reassign":true}`), http.StatusOK, "")
	if got := f.show(t, "receivables", it.ID); got.CampaignID == nil || *got.CampaignID != second {
		t.Fatalf("campaign_id %v", got.CampaignID)
	}
	expect(t, f.do(t, http.MethodPost, "/api/v1/transactions/"+it.ID+"/campaign-assignment", `{"campaign_id":"`+first+`"}`),
		http.StatusNotFound, "resource_not_found")
	expect(t, f.env.Do(t, http.MethodPost, path, f.env.Token(t, "01J0OTHERTENANT00000000000"), `{"campaign_id":"`+first+`"}`),
		http.StatusNotFound, "resource_not_found")
}

// TestAutoAssignmentOrder checks the order rules are evaluated in on a
// single create (contract section 7): highest priority first, ties oldest
// first, all of a campaign's rules must hold, and inactive, unpublished or
// other-direction campaigns are skipped whatever their priority.
func TestAutoAssignmentOrder(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	old := f.campaign(t, `{"name":"Old","direction":"receivable","priority":5}`, true)
	f.env.Clock.Advance(time.Second)
	f.campaign(t, `{"name":"New","direction":"receivable","priority":5}`, true)
	big := f.campaign(t, `{"name":"Big USD","direction":"receivable","priority":10,`+
		`"rules":[{"field":"amount","op":"gte","value":10000},{"field":"currency","op":"eq","value":"USD"}]}`, true)
	f.campaign(t, `{"name":"Low","direction":"receivable","priority":-5}`, true)
	f.campaign(t, `{"name":"Inactive","direction":"receivable","priority":100,"is_active":false}`, true)
	f.campaign(t, `{"name":"Unpublished","direction":"receivable","priority":100}`, false)
	payouts := f.campaign(t, `{"name":"Payouts","direction":"payable","priority":100}`, true)
	tests := []struct {
		name, path, extra, want string
	}{
		{"tie goes to the oldest", "receivables", "", old},
		{"higher priority when all its rules hold", "receivables", `,"amount":20000`, big},
		{"one rule fails: the next campaign", "receivables", `,"amount":20000,"currency":"EUR"`, old},
		{"own direction only", "payables", `,"amount":20000`, payouts},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := `{"contact_id":"` + f.contact + `"` + tt.extra + `}`
			if tt.extra == "" {
				body = `{"contact_id":"` + f.contact + `","amount":1250}`
			}
			r := f.do(t, http.MethodPost, "/api/v1/"+tt.path, body)
			expect(t, r, http.StatusCreated, "")
			var o one
			r.JSON(t, &o)
			if got := o.Data.CampaignID; got == nil || *got != tt.want {
				t.Fatalf("campaign_id %s, want %s", r.Body, tt.want)
			}
		})
	}
}

// TestMalformedRulesAreRefused: a rule that breaks the rules' shape is a 422
// naming the rule's part, on create and on update.
func TestMalformedRulesAreRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.campaign(t, `{"name":"Reminders","direction":"receivable"}`, false)
	tests := []struct {
		name, rules, wantField string
	}{
		{"unknown field", `[{"field":"colour","op":"eq","value":"red"}]`, "rules.0.field"},
		{"unknown op", `[{"field":"amount","op":"between","value":1}]`, "rules.0.op"},
		{"in without an array", `[{"field":"amount","op":"gte","value":1},{"field":"currency","op":"in","value":"USD"}]`, "rules.1.value"},
		{"no value", `[{"field":"amount","op":"eq"}]`, "rules.0.value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			body := `{"name":"x","direction":"receivable","rules":` + tt.rules + `}`
			for _, r := range []testenv.Response{
				f.do(t, http.MethodPost, "/api/v1/campaigns", body),
				f.do(t, http.MethodPut, "/api/v1/campaigns/"+id, body),
			} {
				expect(t, r, http.StatusUnprocessableEntity, "validation_failed")
				var env struct {
					Error struct {
						Details map[string][]string `json:"details"`
					} `json:"error"`
				}
				r.JSON(t, &env)
				if len(env.Error.Details[tt.wantField]) == 0 {
					t.Errorf("details = %v, want a message on %s", env.Error.Details, tt.wantField)
				}
			}
		})
	}
}

// TestStoredMalformedRuleFailsTheCreate: a malformed rule already stored
// (written before the checks, or by hand) fails the create that evaluates
// it with a 500, instead of the campaign being skipped in silence; nothing
// is written.
func TestStoredMalformedRuleFailsTheCreate(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.campaign(t, `{"name":"Big","direction":"receivable","rules":[{"field":"amount","op":"gte","value":1}]}`, true)
	err := tenancy.Do(context.Background(), f.env.Pool, f.tenant, func(tx pgx.Tx) error {
		_, err := tx.Exec(context.Background(),
			`UPDATE campaigns SET rules = '[{"field":"amount","op":"between","value":1}]' WHERE id = $1`, id)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	body := `{"contact_id":"` + f.contact + `","amount":1250}`
	expect(t, f.do(t, http.MethodPost, "/api/v1/receivables", body), http.StatusInternalServerError, "server_error")
	var list struct {
		Meta struct {
			Total int `json:"total"`
		} `json:"meta"`
	}
	f.do(t, http.MethodGet, "/api/v1/receivables", "").JSON(t, &list)
	if list.Meta.Total != 0 {
		t.Errorf("receivables = %d after the failed create, want 0", list.Meta.Total)
	}
}
