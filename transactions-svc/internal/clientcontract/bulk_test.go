package clientcontract_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/transactions-svc/client"
	"github.com/paylane/paylane/transactions-svc/internal/testenv"
)

func TestBulkCreate(t *testing.T) {
	t.Parallel()
	env, c, ctx, tenant, token, known := newTenant(t, "crm-1")

	req := client.BulkCreateRequest{BatchID: ids.New(), Direction: client.DirectionPayable, FirstRowIndex: 500, Items: []json.RawMessage{
		json.RawMessage(`{"contact":{"external_id":"crm-1"},"external_id":"refund-1","amount":2500}`),
		json.RawMessage(`{"contact":{"external_id":"crm-2","first_name":"Grace","phone":"+14155550124"},"amount":100}`),
		json.RawMessage(`{"contact":{"external_id":"crm-3","phone":"+14155550123"},"amount":100}`),
	}}
	rows, err := c.BulkCreate(ctx, token, req)
	if err != nil || len(rows) != 3 {
		t.Fatalf("BulkCreate = %+v, %v", rows, err)
	}
	got := []string{rows[0].Action, rows[1].Action, rows[2].Action}
	if diff := cmp.Diff([]string{client.ActionCreated, client.ActionCreated, client.ActionFailed}, got); diff != "" ||
		rows[0].RowIndex != 500 || rows[2].RowIndex != 502 || len(rows[2].Errors["contact.phone"]) == 0 {
		t.Fatalf("rows %+v (-want +got actions):\n%s", rows, diff)
	}
	s, err := c.Status(ctx, token, rows[0].ID)
	if err != nil || s.Direction != "payable" || s.Amount != 2500 || s.Status != "pending" {
		t.Errorf("status of row 500: %+v, %v (contact %s)", s, err, known.ID)
	}
	again, err := c.BulkCreate(ctx, token, req)
	if err != nil || !cmp.Equal(rows, again) {
		t.Errorf("retried chunk = %+v, %v; want %+v", again, err, rows)
	}
	req.OnDuplicate, req.BatchID, req.Items = client.DuplicateSkip, ids.New(), req.Items[:1]
	if skipped, err := c.BulkCreate(ctx, token, req); err != nil || skipped[0].Action != client.ActionSkipped || skipped[0].ID != rows[0].ID {
		t.Errorf("resubmitted refund-1 with skip = %+v, %v", skipped, err)
	}

	if _, err := c.BulkCreate(ctx, env.Token(t, tenant, "api:create-receivable"), req); client.StatusOf(err) != http.StatusForbidden {
		t.Errorf("payables without api:create-payable: %v", err)
	}
	req.Items = nil
	var ce *client.Error
	if _, err := c.BulkCreate(ctx, token, req); !errors.As(err, &ce) || ce.Status != 422 || len(ce.Fields()["items"]) == 0 {
		t.Errorf("empty chunk: %v", err)
	}
	if _, err := c.BulkCreate(ctx, token, client.BulkCreateRequest{Direction: "sideways"}); err == nil || client.StatusOf(err) != 0 {
		t.Errorf("unknown direction: %v", err)
	}
}

func TestCampaignSteps(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	base := env.Serve(t)
	c := client.New(base, nil)
	ctx := context.Background()
	tenant := ids.New()
	token := env.Token(t, tenant)
	campaign := func(body string, publish bool) string {
		t.Helper()
		r := env.Do(t, http.MethodPost, "/api/v1/campaigns", token, body)
		var out struct {
			Data struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		r.JSON(t, &out)
		if publish {
			env.Do(t, http.MethodPost, "/api/v1/campaigns/"+out.Data.ID+"/publish", token, "")
		}
		return out.Data.ID
	}
	step := `{"delay_hours":24,"message":"Reminder {{link}}"}`
	two := campaign(`{"name":"Two","direction":"receivable","steps":[`+step+`,`+step+`]}`, true)
	campaign(`{"name":"Three","direction":"receivable","priority":1,"steps":[`+step+`,`+step+`,`+step+`]}`, true)
	campaign(`{"name":"Five, unpublished","direction":"receivable","steps":[`+step+`,`+step+`,`+step+`,`+step+`,`+step+`]}`, false)
	campaign(`{"name":"Four, payable","direction":"payable","steps":[`+step+`,`+step+`,`+step+`,`+step+`]}`, true)
	draft := campaign(`{"name":"Draft","direction":"receivable","steps":[`+step+`]}`, false)

	for _, tt := range []struct {
		name       string
		direction  string
		campaignID string
		auto       bool
		want       int
	}{
		{"campaign_id", "receivable", two, false, 2},
		{"campaign_id wins over auto", "receivable", two, true, 2},
		{"auto: the largest active published of the direction", "receivable", "", true, 3},
		{"auto, payables", "payable", "", true, 4},
		{"neither", "receivable", "", false, 0},
	} {
		if got, err := c.CampaignSteps(ctx, token, tt.direction, tt.campaignID, tt.auto); err != nil || got != tt.want {
			t.Errorf("%s: CampaignSteps = %d, %v; want %d", tt.name, got, err, tt.want)
		}
	}
	for name, id := range map[string]string{"unpublished": draft, "other direction": two, "unknown": ids.New(), "not an id": "x"} {
		dir := "receivable"
		if name == "other direction" {
			dir = "payable"
		}
		var ce *client.Error
		if _, err := c.CampaignSteps(ctx, token, dir, id, false); !errors.As(err, &ce) || ce.Status != 422 || len(ce.Fields()["campaign_id"]) == 0 {
			t.Errorf("%s campaign: err = %v, want 422 naming campaign_id", name, err)
		}
	}
	if _, err := c.CampaignSteps(ctx, env.Token(t, tenant, "api:create-payable"), "receivable", "", true); client.StatusOf(err) != http.StatusForbidden {
		t.Errorf("without api:create-receivable: %v", err)
	}
	if _, err := c.CampaignSteps(ctx, token, "sideways", "", true); client.StatusOf(err) != 422 {
		t.Errorf("unknown direction: %v", err)
	}
}
